/*
 * pingate_run.c — running pingate-verify, once per sign-in.
 *
 * Runs the helper the way pam_unix runs unix_chkpwd: pipes for the child's
 * stdin and stdout, every other descriptor closed, an absolute path and an
 * empty environment, and the exit status read as part of the answer. Three
 * differences: posix_spawn instead of fork (spawn_helper says why), SIGCHLD
 * is blocked while the module waits for the child and
 * its handler kept (only a host that ignores it gets the default for that
 * time, so that the kernel does not reap the helper before its exit status
 * is read), and every wait has a deadline (timeout=), after which the helper
 * is killed.
 *
 * A status asked with then=verify keeps its run open when the user has a
 * credential (pingate_protocol.h, FOLLOW-UP): the helper waits on its
 * descriptor 3, a socket, for the verify, while the module prompts. A
 * helper start costs more than everything else the helper does but the KDF,
 * so a sign-in then pays one instead of two. While the person types, the
 * host's SIGCHLD is its own again; the run is reaped through its pidfd, so a
 * helper that ended meanwhile and was reaped by the host can never be
 * confused with another process that took its pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

/* The whole request is written into an empty pipe before the helper starts. */
_Static_assert(PINGATE_REQUEST_MAX <= PIPE_BUF, "a request must fit in an empty pipe");

#ifndef P_PIDFD
#define P_PIDFD 3  /* waitid(2) on a pidfd, Linux 5.4 (linux/wait.h) */
#endif

/* Pipe ends must not sit on 0, 1 or 2, where the child's dup2 would clobber them. */
static int move_above_stdio(int fd)
{
	int moved;

	if (fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return moved;
}

static bool make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	fds[0] = move_above_stdio(fds[0]);
	fds[1] = move_above_stdio(fds[1]);
	return fds[0] >= 0 && fds[1] >= 0;
}

/* A socket, not a pipe: a verify sent after the helper stopped waiting
 * fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in the host. */
static bool make_follow_up_socket(int fds[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
		return false;
	fds[0] = move_above_stdio(fds[0]);
	fds[1] = move_above_stdio(fds[1]);
	return fds[0] >= 0 && fds[1] >= 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Starts the helper with the request pipe on stdin, the answer pipe on
 * stdout, /dev/null on stderr, the follow-up socket (if any) on descriptor
 * 3, every other descriptor closed, the host's signal mask and an empty
 * environment. posix_spawn, not fork: glibc's shares the host's memory
 * until the exec instead of copying its page tables, and a fork of a
 * desktop shell's lock screen (hundreds of MB) costs milliseconds more per
 * sign-in. Under sudo the module runs with euid 0 and the user's real uid;
 * the helper becomes root fully itself (its ProcessHardening), as pam_unix's
 * child does for unix_chkpwd. Returns 0 or an errno value.
 */
static int spawn_helper(const char *path, char *const argv[], int in, int out, int follow_up,
		const sigset_t *host_mask, pid_t *pid)
{
	static char *const empty_env[] = { NULL };
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attributes;
	int keep = follow_up >= 0 ? PINGATE_FOLLOW_UP_FD : STDERR_FILENO;
	int error;

	if ((error = posix_spawn_file_actions_init(&actions)) != 0)
		return error;
	if ((error = posix_spawnattr_init(&attributes)) != 0) {
		posix_spawn_file_actions_destroy(&actions);
		return error;
	}
	error = posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
	if (error == 0)
		error = posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
	if (error == 0)
		error = posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	/* onto itself, glibc clears close-on-exec, as POSIX now asks */
	if (error == 0 && follow_up >= 0)
		error = posix_spawn_file_actions_adddup2(&actions, follow_up, PINGATE_FOLLOW_UP_FD);
	if (error == 0)
		error = posix_spawn_file_actions_addclosefrom_np(&actions, keep + 1);
	if (error == 0)
		error = posix_spawnattr_setsigmask(&attributes, host_mask);
	if (error == 0)
		error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
	if (error == 0)
		error = posix_spawn(pid, path, &actions, &attributes, argv, empty_env);
	posix_spawnattr_destroy(&attributes);
	posix_spawn_file_actions_destroy(&actions);
	return error;
}

/* A point on CLOCK_MONOTONIC `seconds` from now, immune to clock changes. */
struct timespec pingate_deadline_after(unsigned seconds)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += seconds;
	return deadline;
}

/* Milliseconds until `deadline`, 0 once it has passed. */
int pingate_milliseconds_left(const struct timespec *deadline)
{
	struct timespec now;
	long long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
		(deadline->tv_nsec - now.tv_nsec) / 1000000;
	return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/*
 * Reads into buf after its first *used bytes, up to size-1 in all, until
 * EOF (*ended) or, with first_line, until a newline is in. *too_long if the
 * helper had more to say. Returns 0, -1 on a read error, -2 if the deadline
 * passed first.
 */
static int read_answer(int fd, char *buf, size_t size, size_t *used, bool first_line,
		const struct timespec *deadline, bool *ended, bool *too_long)
{
	struct pollfd readable = { .fd = fd, .events = POLLIN };
	char extra;

	*ended = false;
	while (!(first_line && memchr(buf, '\n', *used) != NULL)) {
		ssize_t n;
		int ready = poll(&readable, 1, pingate_milliseconds_left(deadline));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -1;
		if (ready == 0)
			return -2;
		n = *used < size - 1 ? read(fd, buf + *used, size - 1 - *used) : read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			*ended = true;
			break;
		}
		if (*used == size - 1)
			*too_long = true;
		else
			*used += (size_t)n;
		buf[*used] = '\0';
	}
	buf[*used] = '\0';
	return 0;
}

/*
 * One waitid(2) on the run: 1 with *wstatus set if it ended, 0 if it runs
 * (or EINTR), -1 if it cannot be waited for (someone else reaped it). By
 * pidfd where there is one, never by a pid that may have been reused.
 */
static int collect(const struct pingate_run *run, int *wstatus, int options)
{
	siginfo_t info;

	if (run->pidfd < 0) {
		pid_t done = waitpid(run->pid, wstatus, options);

		return done == run->pid ? 1 : done == 0 || errno == EINTR ? 0 : -1;
	}
	memset(&info, 0, sizeof(info));
	if (waitid((idtype_t)P_PIDFD, (id_t)run->pidfd, &info, WEXITED | options) != 0)
		return errno == EINTR ? 0 : -1;
	if (info.si_pid == 0)
		return 0;
	/* As waitpid would have said it (WIFEXITED, WEXITSTATUS, WTERMSIG). */
	*wstatus = info.si_code == CLD_EXITED ? (info.si_status & 0xff) << 8 : info.si_status & 0x7f;
	return 1;
}

static void kill_run(const struct pingate_run *run)
{
	if (run->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, run->pidfd, SIGKILL, NULL, 0);
	else
		kill(run->pid, SIGKILL);
}

/*
 * Waits until the run may have ended, at most until the deadline. The
 * pidfd is readable the moment the helper exits, so the module learns of
 * it at once: polling waitpid(WNOHANG) with sleeps cost every helper run
 * about a millisecond, since its answer's end of file comes just before its
 * exit. Without a pidfd (an old kernel, a seccomp filter) it sleeps 1 ms,
 * doubling to 16 ms.
 */
static void await_end(const struct pingate_run *run, struct timespec *pause,
		const struct timespec *deadline)
{
	struct pollfd ended = { .fd = run->pidfd, .events = POLLIN };

	if (run->pidfd >= 0 && poll(&ended, 1, pingate_milliseconds_left(deadline)) >= 0)
		return;
	nanosleep(pause, NULL);
	if (pause->tv_nsec < 16000000)
		pause->tv_nsec *= 2;
}

enum reaping { REAPED, KILLED, REAPED_ELSEWHERE };

/*
 * Reaps the run before the deadline; past it, kills and reaps it. A helper
 * that was stopped (SIGSTOP, a user's Ctrl-Z) or hangs costs the host at
 * most the deadline, then the stack moves on to the password. KILLED if it
 * had to be; REAPED_ELSEWHERE if it could not be waited for (a host whose
 * SIGCHLD handler reaps any child got it first). Closes it.
 */
static enum reaping reap_by_deadline(struct pingate_run *run, int *wstatus, const struct timespec *deadline)
{
	struct timespec pause = { 0, 1000000 };
	enum reaping how = KILLED;
	int done;

	for (;;) {
		done = collect(run, wstatus, WNOHANG);
		if (done != 0) {
			how = done == 1 ? REAPED : REAPED_ELSEWHERE;
			break;
		}
		if (pingate_milliseconds_left(deadline) == 0) {
			kill_run(run);
			while (collect(run, wstatus, 0) == 0)
				;
			break;
		}
		await_end(run, &pause, deadline);
	}
	close_fd(&run->answers);
	close_fd(&run->follow_up);
	close_fd(&run->pidfd);
	run->pid = 0;
	return how;
}

/*
 * The host's SIGCHLD, kept intact around our child. Changing the
 * disposition (as pam_unix does) would discard the exit of a host child
 * that ends meanwhile, so the signal is only blocked in this thread: the
 * host's handler cannot run here and reap our helper under us, and whatever
 * arrived is delivered when the mask is restored. (In a threaded host another
 * thread may still take the signal and reap with waitpid(-1); the helper's
 * answer is then lost and the module fails closed, never to success.) Only
 * what makes the kernel reap children itself is changed meanwhile: an
 * ignored SIGCHLD becomes the default, and SA_NOCLDWAIT is cleared from a
 * handler, which stays.
 */
struct host_child_signal {
	sigset_t mask;
	struct sigaction action;
	bool action_changed;
};

static void hold_child_signals(struct host_child_signal *host)
{
	sigset_t block;
	struct sigaction reaping;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &host->mask);
	host->action_changed = false;
	if (sigaction(SIGCHLD, NULL, &host->action) != 0)
		return;
	reaping = host->action;
	reaping.sa_flags &= ~SA_NOCLDWAIT;
	if (!(reaping.sa_flags & SA_SIGINFO) && reaping.sa_handler == SIG_IGN)
		reaping.sa_handler = SIG_DFL;
	if (reaping.sa_flags != host->action.sa_flags || reaping.sa_handler != host->action.sa_handler)
		host->action_changed = sigaction(SIGCHLD, &reaping, NULL) == 0;
}

static void release_child_signals(const struct host_child_signal *host)
{
	if (host->action_changed) {
		sigaction(SIGCHLD, &host->action, NULL);
		/*
		 * A host that asked for no zombies (SIG_IGN, SA_NOCLDWAIT) never
		 * waits for its children: one that ended while its handling was
		 * set aside is reaped here, as the kernel would have. Our own
		 * helper is reaped already (such a host never keeps a run open).
		 */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	pthread_sigmask(SIG_SETMASK, &host->mask, NULL);
}

/* Starts the helper with the request on its stdin; SIGCHLD is held. */
static bool start_run(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *request, size_t len, bool follow_up, const sigset_t *host_mask,
		struct pingate_run *run, char *why, size_t why_size)
{
	int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 }, sockets[2] = { -1, -1 };
	char *argv[] = { (char *)opts->helper, NULL, NULL, NULL };
	bool started = false;
	int error;
	pid_t pid;

	/*
	 * The helper takes options from root only (a setgid program must not
	 * let its caller choose the store or policy), so a user-run locker
	 * with conf= on its line asks with the default configuration.
	 */
	if (opts->conf != NULL && geteuid() == 0) {
		argv[1] = "--config";
		argv[2] = (char *)opts->conf;
	} else if (opts->conf != NULL && opts->debug) {
		pam_syslog(pamh, LOG_DEBUG, "conf=%s not passed to the helper: the caller is not root",
			opts->conf);
	}
	if (!make_pipe(to_child) || !make_pipe(from_child) ||
	    (follow_up && !make_follow_up_socket(sockets))) {
		snprintf(why, why_size, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	/*
	 * The request is written before the helper starts, into a pipe this process
	 * still reads: a helper that exits early can then never raise SIGPIPE
	 * in the host (sudo, a screen locker), and nothing can block.
	 */
	if (fcntl(to_child[1], F_SETFL, O_NONBLOCK) != 0 ||
	    write(to_child[1], request, len) != (ssize_t)len) {
		snprintf(why, why_size, "cannot write the request: %s", strerror(errno));
		goto out;
	}
	close_fd(&to_child[1]);
	error = spawn_helper(opts->helper, argv, to_child[0], from_child[1], sockets[1], host_mask, &pid);
	if (error != 0) {
		snprintf(why, why_size, "cannot run %s: %s", opts->helper, strerror(error));
		goto out;
	}
	run->pid = pid;
	/* Unreaped and ours (SIGCHLD is held, not ignored): the pid is the helper's. */
	run->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	run->answers = from_child[0];
	from_child[0] = -1;
	run->follow_up = sockets[0];
	sockets[0] = -1;
	started = true;
out:
	for (int i = 0; i < 2; i++) {
		close_fd(&to_child[i]);
		close_fd(&from_child[i]);
		close_fd(&sockets[i]);
	}
	return started;
}

/*
 * Reads the rest of the run's answer (after *used bytes) to EOF and reaps
 * it by the deadline. Returns its exit status, or -1 with why (and *how,
 * when asked, says whether it was reaped elsewhere).
 */
static int finish_run(const struct pingate_options *opts, struct pingate_run *run,
		char *reply, size_t reply_size, size_t used, const struct timespec *deadline,
		char *why, size_t why_size, enum reaping *how)
{
	bool too_long = false, ended;
	enum reaping reaping;
	int got, wstatus = 0;

	/* EOF on its descriptor 3 first: a helper still waiting there ends. */
	close_fd(&run->follow_up);
	got = read_answer(run->answers, reply, reply_size, &used, false, deadline, &ended, &too_long);
	/* Closed before waiting, so a helper that keeps writing ends instead of blocking. */
	close_fd(&run->answers);
	if (got == -2)
		kill_run(run);
	reaping = reap_by_deadline(run, &wstatus, deadline);
	if (how != NULL)
		*how = reaping;
	if (reaping == REAPED_ELSEWHERE)
		snprintf(why, why_size, "%s ended, and another waiter (the host's SIGCHLD handler) reaped it",
			opts->helper);
	else if (reaping == KILLED || got == -2)
		snprintf(why, why_size, "%s did not answer within %u s (stopped or hung): killed",
			opts->helper, opts->timeout);
	else if (!WIFEXITED(wstatus))
		snprintf(why, why_size, "%s killed by signal %d", opts->helper, WTERMSIG(wstatus));
	else if (WEXITSTATUS(wstatus) == 127)
		snprintf(why, why_size, "cannot run %s (exit 127)", opts->helper);
	else if (got < 0 || too_long)
		snprintf(why, why_size, "unreadable or over-long answer from %s", opts->helper);
	else
		return WEXITSTATUS(wstatus);
	return -1;
}

/*
 * Whether a status run stays open for its verify: its first line is one
 * whole "enrolled" line, the helper waits on, and it can be reaped safely
 * later (a pidfd, and a host whose SIGCHLD is not ignored: the kernel would
 * reap the helper while the host's handling is restored).
 */
static bool one_enrolled_line(const char *reply, size_t used)
{
	size_t word = strlen(PINGATE_WORD_ENROLLED);

	return used > word && reply[used - 1] == '\n' && memchr(reply, '\n', used) == reply + used - 1 &&
		strncmp(reply, PINGATE_WORD_ENROLLED, word) == 0 && reply[word] == ' ';
}

static bool stays_open(const struct pingate_run *run, const struct host_child_signal *host,
		const char *reply, size_t used, bool ended)
{
	return !ended && run->pidfd >= 0 && !host->action_changed && one_enrolled_line(reply, used);
}

/*
 * The request over pingate-verify.socket (pingate_socket.c): 1 with its
 * exit status in *status (an "enrolled" status kept open in open_run), 0
 * when nothing listens there (spawn instead). No SIGCHLD business: there is
 * no child.
 */
static int ask_socket(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *request, size_t len, struct pingate_run *open_run,
		char *reply, size_t reply_size, char *why, size_t why_size, int *status)
{
	bool absent;
	int fd = pingate_socket_connect(&absent, why, why_size);

	if (fd < 0 && absent) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "%s; running %s instead", why, opts->helper);
		return 0;
	}
	*status = fd < 0 ? -1 : pingate_socket_exchange(fd, request, len, reply, reply_size, opts->timeout, why, why_size);
	if (*status == PINGATE_RUN_ENDED) {
		snprintf(why, why_size, "%s closed the connection unanswered", PINGATE_VERIFY_SOCKET);
		*status = -1;
	}
	if (*status == PINGATE_EXIT_OK && open_run != NULL && one_enrolled_line(reply, strlen(reply))) {
		open_run->socket = fd;
		return 1;
	}
	if (fd >= 0)
		close(fd);
	return 1;
}

int pingate_run_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *request, size_t len, struct pingate_run *open_run,
		char *reply, size_t reply_size, char *why, size_t why_size)
{
	struct pingate_run run = PINGATE_RUN_NONE;
	struct host_child_signal host;
	struct timespec deadline;
	bool too_long = false, ended = false;
	size_t used = 0;
	int status = -1;

	reply[0] = '\0';
	if (pingate_socket_needed() &&
	    ask_socket(pamh, opts, request, len, open_run, reply, reply_size, why, why_size, &status))
		return status;
	hold_child_signals(&host);
	deadline = pingate_deadline_after(opts->timeout);
	if (!start_run(pamh, opts, request, len, open_run != NULL, &host.mask, &run, why, why_size))
		goto out;
	if (open_run != NULL &&
	    read_answer(run.answers, reply, reply_size, &used, true, &deadline, &ended, &too_long) == 0 &&
	    stays_open(&run, &host, reply, used, ended)) {
		*open_run = run;
		status = PINGATE_EXIT_OK;
		goto out;
	}
	/* Not kept: the helper sees EOF on descriptor 3 and ends, as without one. */
	status = finish_run(opts, &run, reply, reply_size, used, &deadline, why, why_size, NULL);
out:
	release_child_signals(&host);
	return status;
}

int pingate_run_follow_up(pam_handle_t *pamh, const struct pingate_options *opts,
		struct pingate_run *run, const char *request, size_t len,
		char *reply, size_t reply_size, char *why, size_t why_size)
{
	struct host_child_signal host;
	struct timespec deadline;
	enum reaping how;
	int status, send_error = 0;
	bool sent;

	(void)pamh;
	reply[0] = '\0';
	if (run->socket >= 0) {
		/* A connection that ended unanswered: a new run, as below. */
		status = pingate_socket_exchange(run->socket, request, len, reply, reply_size, opts->timeout, why, why_size);
		close_fd(&run->socket);
		return status;
	}
	hold_child_signals(&host);
	deadline = pingate_deadline_after(opts->timeout);
	/* At most PINGATE_REQUEST_MAX bytes into an empty socket: never blocks. */
	sent = send(run->follow_up, request, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len &&
		shutdown(run->follow_up, SHUT_WR) == 0;
	if (!sent)
		send_error = errno;
	status = finish_run(opts, run, reply, reply_size, 0, &deadline, why, why_size, &how);
	release_child_signals(&host);
	/*
	 * The helper had ended before the verify came (its end was closed),
	 * and a host that reaps any child (waitpid(-1)) reaped it, so its exit
	 * is not ours to read. The verify never reached it, so nothing was
	 * judged or counted: a new run, as when it stopped waiting. (One we
	 * reaped ourselves is judged by its exit, below.)
	 */
	if (how == REAPED_ELSEWHERE && (send_error == EPIPE || send_error == ECONNRESET))
		return PINGATE_RUN_ENDED;
	if (status < 0 || reply[0] != '\0')
		return status;  /* the verify's answer, checked against this exit as any is */
	/*
	 * No second line. A helper that had stopped waiting
	 * (PINGATE_FOLLOW_UP_SECONDS) ends with the status's exit 0: it judged
	 * and counted nothing, so the verify goes to a new run. Any other exit
	 * contradicts the "enrolled" it said: no answer, as for a one-shot run.
	 */
	if (status == PINGATE_EXIT_OK)
		return PINGATE_RUN_ENDED;
	snprintf(why, why_size, "%s said enrolled, then %s with exit %d", opts->helper,
		sent ? "did not answer the verify" : "ended", status);
	return -1;
}

void pingate_run_end(const struct pingate_options *opts, struct pingate_run *run)
{
	struct host_child_signal host;
	struct timespec deadline;
	int wstatus;

	close_fd(&run->socket);  /* the verifier sees EOF and ends */
	if (run->pid == 0)
		return;
	hold_child_signals(&host);
	deadline = pingate_deadline_after(opts->timeout);
	/* EOF on its descriptor 3: the helper ends with the status's exit. */
	close_fd(&run->follow_up);
	close_fd(&run->answers);
	reap_by_deadline(run, &wstatus, &deadline);
	release_child_signals(&host);
}
