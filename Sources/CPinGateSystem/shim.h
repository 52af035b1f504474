/*
 * The few system interfaces Swift's Glibc overlay cannot reach, each as a
 * static inline function prefixed with the module name.
 */
#ifndef CPINGATESYSTEM_SHIM_H
#define CPINGATESYSTEM_SHIM_H
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/vfs.h>

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
#endif
