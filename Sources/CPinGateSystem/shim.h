/*
 * The few system interfaces Swift's Glibc overlay cannot reach, each as a
 * static inline function prefixed with the module name.
 */
#ifndef CPINGATESYSTEM_SHIM_H
#define CPINGATESYSTEM_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Linux's values; defining _GNU_SOURCE here would make the glibc headers
 * differ from the ones Swift's Glibc module was built with. */
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

/* `struct flock` shadows the function flock(2) in Swift. */
static inline int cpingate_flock(int fd, int operation) { return flock(fd, operation); }

/* fcntl(2) is variadic, so Swift cannot pass it a struct flock. Never
 * F_OFD_SETLKW: a stopped lock holder would make that wait forever. */
static inline int cpingate_ofd_lock(int fd, struct flock *request) {
    return fcntl(fd, F_OFD_SETLK, request);
}
static inline int cpingate_ofd_query(int fd, struct flock *request) {
    return fcntl(fd, F_OFD_GETLK, request);
}

/* sync_file_range(2) is declared only under _GNU_SOURCE: start writing a
 * file's dirty pages out, without waiting (Linux's SYNC_FILE_RANGE_WRITE, 2). */
static inline int cpingate_start_write_out(int fd) {
    return (int)syscall(SYS_sync_file_range, fd, (off_t)0, (off_t)0, 2U);
}

/* prctl(2) is variadic: forbid core dumps (they would hold secrets). */
static inline int cpingate_disable_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* `struct statfs` shadows the function statfs(2) in Swift: the file system
 * type of an open descriptor (RAMFS_MAGIC, TMPFS_MAGIC, ...). */
static inline int cpingate_filesystem_type(int fd, long *type) {
    struct statfs status;
    int result = fstatfs(fd, &status);
    if (result == 0) *type = (long)status.f_type;
    return result;
}

/* mount(2) for a ramfs: its pages are never swapped out (tmpfs's may be). */
static inline int cpingate_mount_ramfs(const char *target, const char *options) {
    return mount("ramfs", target, "ramfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options);
}
/* pidfd_open(2) (Linux 5.3): a descriptor that polls readable when the
 * process exits; syscall(2) is variadic. -1 with errno set where the kernel
 * or a seccomp filter refuses it. */
static inline int cpingate_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
/* memfd_create(2) with MFD_CLOEXEC and MFD_ALLOW_SEALING: the image
 * pingate-lock's Wayland locker shares with its UI child and the compositor;
 * glibc declares it only under _GNU_SOURCE, which Swift's Glibc module is not
 * built with. */
static inline int cpingate_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */ | 2U /* MFD_ALLOW_SEALING */);
}
/* Seals a memfd's size for good (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL,
 * also _GNU_SOURCE only): a UI child that shrank the image would make the
 * compositor's reads of it fault, and the compositor drop the locker. */
static inline int cpingate_memfd_seal_size(int fd) {
    return fcntl(fd, 1033 /* F_ADD_SEALS */, 0x0002 | 0x0004 | 0x0001);
}
/* SO_PEERPIDFD (Linux 6.5, asm-generic/socket.h): a pidfd of a unix
 * socket's peer; glibc 2.36 does not name it. */
static const int cpingate_so_peerpidfd = 77;
/* The setgid helper's dispositions: every signal back to the default (an
 * ignored one is inherited across exec), then SIGPIPE, the job-control stops
 * and SIGXFSZ ignored. In C because the Glibc overlay's SIG_DFL and SIG_IGN
 * cost the helper's start a Swift metadata lookup each. */
static inline void cpingate_reset_signals_for_helper(void) {
    for (int number = 1; number < 65; number++)
        if (number != SIGKILL && number != SIGSTOP) signal(number, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTSTP, SIG_IGN);
    signal(SIGTTIN, SIG_IGN);
    signal(SIGTTOU, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}
#endif
