/*
 * pingate_helper.c — one request to pingate-verify and its answer.
 *
 * Runs the helper the way pam_unix runs unix_chkpwd: pipes for the child's
 * stdin and stdout, every other descriptor closed, an absolute path and an
 * empty environment, and the exit status read as part of the answer. Two
 * differences: SIGCHLD is blocked while the child runs and its handler kept
 * (only a host that ignores it gets the default for that time, so that the
 * kernel does not reap the helper before its exit status is read), and the
 * answer has a deadline (timeout=), after which the helper is killed. See
 * pingate_protocol.h for the format; pingate_answer.c reads the answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

/* The whole request is written into an empty pipe before the fork. */
_Static_assert(PINGATE_REQUEST_MAX <= PIPE_BUF, "a request must fit in an empty pipe");

#define NAME_MAX_LEN 256
#define SECRET_MAX_LEN 1024
#define FD_CLOSE_MAX (1L << 20)  /* Linux's default fs.nr_open, the most a hard limit can be */

bool pingate_is_clean_value(const char *text, size_t max)
{
	size_t i;

	for (i = 0; text[i] != '\0'; i++) {
		unsigned char c = (unsigned char)text[i];

		if (i >= max || c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

const char *pingate_log_text(const char *text, char buffer[PINGATE_LOG_TEXT_MAX])
{
	size_t used = 0;

	if (text == NULL)
		return "(none)";
	for (; *text != '\0' && used + 5 < PINGATE_LOG_TEXT_MAX; text++) {
		unsigned char c = (unsigned char)*text;

		if (c < 0x20 || c == 0x7f || c == '\\')
			used += (size_t)snprintf(buffer + used, PINGATE_LOG_TEXT_MAX - used, "\\x%02x", c);
		else
			buffer[used++] = (char)c;
	}
	buffer[used] = '\0';
	return buffer;
}

static bool append_field(char *buf, size_t *used, const char *key, const char *value)
{
	size_t room = PINGATE_REQUEST_MAX - *used;
	int n = snprintf(buf + *used, room, "%s=%s\n", key, value);

	if (n < 0 || (size_t)n >= room)
		return false;
	*used += (size_t)n;
	return true;
}

/*
 * Optional PAM items go into the request only if they are printable, except
 * PAM_RHOST and PAM_SERVICE, which the helper judges: any remote host makes
 * the request remote, and a request without a service is the admin CLI's,
 * to which the services list does not apply. So those two are never left
 * out: an unprintable or missing one is sent as a placeholder.
 */
static bool append_item(pam_handle_t *pamh, char *buf, size_t *used, const char *key, int item)
{
	const void *value = NULL;
	bool judged = item == PAM_RHOST || item == PAM_SERVICE;

	if (pam_get_item(pamh, item, &value) != PAM_SUCCESS || value == NULL ||
	    ((const char *)value)[0] == '\0')
		return item != PAM_SERVICE || append_field(buf, used, key, "(none)");
	if (!pingate_is_clean_value(value, NAME_MAX_LEN))
		return !judged || append_field(buf, used, key, "(unprintable)");
	return append_field(buf, used, key, value);
}

static bool append_number(char *buf, size_t *used, const char *key, long value)
{
	char text[24];

	snprintf(text, sizeof(text), "%ld", value);
	return append_field(buf, used, key, text);
}

static size_t build_request(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller, char *buf, const char *op,
		const char *user, const char *secret, bool want_notice)
{
	size_t used = (size_t)snprintf(buf, PINGATE_REQUEST_MAX, "%s\n", PINGATE_PROTOCOL_VERSION_LINE);
	bool ok = append_field(buf, &used, "op", op) &&
		append_field(buf, &used, "user", user) &&
		append_item(pamh, buf, &used, "service", PAM_SERVICE) &&
		append_item(pamh, buf, &used, "tty", PAM_TTY) &&
		append_item(pamh, buf, &used, "rhost", PAM_RHOST) &&
		append_number(buf, &used, "caller_uid", (long)caller->uid) &&
		append_number(buf, &used, "caller_pid", (long)caller->pid) &&
		(!opts->allow_remote || append_field(buf, &used, "allow_remote", "1")) &&
		(!want_notice || append_field(buf, &used, "notice", "1")) &&
		(secret == NULL || append_field(buf, &used, "secret", secret));

	return ok ? used : 0;
}

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

/*
 * Where close_range(2) is missing, the child closes descriptors one by one
 * below this: the hard RLIMIT_NOFILE, since the host may hold descriptors
 * above a soft limit it lowered after opening them. Computed before fork.
 */
static long highest_fd_bound(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_max == RLIM_INFINITY ||
	    limit.rlim_max > (rlim_t)FD_CLOSE_MAX)
		return FD_CLOSE_MAX;
	return (long)limit.rlim_max;
}

/* In the child: only async-signal-safe calls, since the host may be threaded. */
static void exec_helper(const char *path, char *const argv[], int in, int out, long max_fd,
		const sigset_t *host_mask)
{
	static char *const empty_env[] = { NULL };
	int null_fd;
	long fd;

	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	null_fd = open("/dev/null", O_WRONLY);
	if (null_fd < 0 || dup2(null_fd, STDERR_FILENO) < 0)
		_exit(127);
	if (close_range(STDERR_FILENO + 1, ~0U, 0) != 0)
		for (fd = STDERR_FILENO + 1; fd < max_fd; fd++)
			close((int)fd);
	/*
	 * As pam_unix does for unix_chkpwd: under sudo the module runs with
	 * euid 0 and the user's real uid; the helper judges its caller by the
	 * real uid, so become root fully before asking about another user.
	 */
	if (geteuid() == 0 && getuid() != 0 && setuid(0) != 0)
		_exit(127);
	sigprocmask(SIG_SETMASK, host_mask, NULL);
	execve(path, argv, empty_env);
	_exit(127);
}

/* A point on CLOCK_MONOTONIC `seconds` from now, immune to clock changes. */
static struct timespec deadline_after(unsigned seconds)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += seconds;
	return deadline;
}

/* Milliseconds until `deadline`, 0 once it has passed. */
static int milliseconds_left(const struct timespec *deadline)
{
	struct timespec now;
	long long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
		(deadline->tv_nsec - now.tv_nsec) / 1000000;
	return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/*
 * Reads up to size-1 bytes until EOF; *too_long if the helper had more to
 * say. Returns -1 on a read error, -2 if the deadline passed first.
 */
static ssize_t read_answer(int fd, char *buf, size_t size, const struct timespec *deadline,
		bool *too_long)
{
	struct pollfd readable = { .fd = fd, .events = POLLIN };
	size_t used = 0;
	char extra;

	*too_long = false;
	for (;;) {
		ssize_t n;
		int ready = poll(&readable, 1, milliseconds_left(deadline));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -1;
		if (ready == 0)
			return -2;
		n = used < size - 1 ? read(fd, buf + used, size - 1 - used) : read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if (used == size - 1)
			*too_long = true;
		else
			used += (size_t)n;
	}
	buf[used] = '\0';
	return (ssize_t)used;
}

/*
 * Reaps pid before the deadline; past it, kills and reaps it. A helper
 * that was stopped (SIGSTOP, a user's Ctrl-Z) or hangs costs the host at
 * most the deadline, then the stack moves on to the password. Returns
 * false if it had to be killed (or could not be waited for).
 */
static bool reap_by_deadline(pid_t pid, int *wstatus, const struct timespec *deadline)
{
	struct timespec pause = { 0, 1000000 };  /* 1 ms, doubling to 16 ms */

	for (;;) {
		pid_t done = waitpid(pid, wstatus, WNOHANG);

		if (done == pid)
			return true;
		if (done < 0 && errno != EINTR)
			return false;
		if (done == 0 && milliseconds_left(deadline) == 0)
			break;
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 16000000)
			pause.tv_nsec *= 2;
	}
	if (kill(pid, SIGKILL) == 0)
		while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
			;
	return false;
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
	if (host->action_changed)
		sigaction(SIGCHLD, &host->action, NULL);
	pthread_sigmask(SIG_SETMASK, &host->mask, NULL);
}

/*
 * Returns the helper's exit status (0-255) with its output in reply, or -1
 * with the reason in why.
 */
static int run_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *request, size_t len, char *reply, size_t reply_size,
		char *why, size_t why_size)
{
	int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 };
	char *argv[] = { (char *)opts->helper, NULL, NULL, NULL };
	struct host_child_signal host;
	bool signals_held = false, too_long, reaped;
	long max_fd = highest_fd_bound();
	struct timespec deadline;
	int wstatus = 0, status = -1;
	ssize_t got;
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
	if (!make_pipe(to_child) || !make_pipe(from_child)) {
		snprintf(why, why_size, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	/*
	 * The request is written before the fork, into a pipe this process
	 * still reads: a helper that exits early can then never raise SIGPIPE
	 * in the host (sudo, a screen locker), and nothing can block.
	 */
	if (fcntl(to_child[1], F_SETFL, O_NONBLOCK) != 0 ||
	    write(to_child[1], request, len) != (ssize_t)len) {
		snprintf(why, why_size, "cannot write the request: %s", strerror(errno));
		goto out;
	}
	close(to_child[1]);
	to_child[1] = -1;

	hold_child_signals(&host);
	signals_held = true;
	deadline = deadline_after(opts->timeout);
	pid = fork();
	if (pid == 0)
		exec_helper(opts->helper, argv, to_child[0], from_child[1], max_fd, &host.mask);
	if (pid < 0) {
		snprintf(why, why_size, "cannot fork: %s", strerror(errno));
		goto out;
	}
	close(from_child[1]);
	from_child[1] = -1;
	got = read_answer(from_child[0], reply, reply_size, &deadline, &too_long);
	/* Closed before waiting, so a helper that keeps writing ends instead of blocking. */
	close(from_child[0]);
	from_child[0] = -1;

	reaped = got != -2 && reap_by_deadline(pid, &wstatus, &deadline);
	if (got == -2 && kill(pid, SIGKILL) == 0)
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
	if (!reaped)
		snprintf(why, why_size, "%s did not answer within %u s (stopped or hung): killed",
			opts->helper, opts->timeout);
	else if (!WIFEXITED(wstatus))
		snprintf(why, why_size, "%s killed by signal %d", opts->helper, WTERMSIG(wstatus));
	else if (WEXITSTATUS(wstatus) == 127)
		snprintf(why, why_size, "cannot run %s (exit 127)", opts->helper);
	else if (got < 0 || too_long)
		snprintf(why, why_size, "unreadable or over-long answer from %s", opts->helper);
	else
		status = WEXITSTATUS(wstatus);
out:
	for (int i = 0; i < 2; i++) {
		if (to_child[i] >= 0)
			close(to_child[i]);
		if (from_child[i] >= 0)
			close(from_child[i]);
	}
	if (signals_held)
		release_child_signals(&host);
	return status;
}

static void set_no_answer(struct pingate_answer *answer, const char *why)
{
	memset(answer, 0, sizeof(*answer));
	answer->reply = PINGATE_REPLY_NO_ANSWER;
	snprintf(answer->detail, sizeof(answer->detail), "%s", why);
}

void pingate_ask_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller, const char *op, const char *user,
		const char *secret, bool want_notice, struct pingate_answer *answer)
{
	char request[PINGATE_REQUEST_MAX];
	char reply[PINGATE_ANSWER_MAX + 1], line[PINGATE_ANSWER_MAX + 1];
	char why[2 * PINGATE_ANSWER_MAX] = "";
	char name[PINGATE_LOG_TEXT_MAX];
	size_t len = 0, reply_len;
	int status = -1;

	set_no_answer(answer, "");
	if (secret != NULL && !pingate_is_clean_value(secret, SECRET_MAX_LEN)) {
		/* Cannot be a PIN or pattern, and cannot travel on a request line. */
		answer->reply = PINGATE_REPLY_MALFORMED;
		snprintf(answer->detail, sizeof(answer->detail), "malformed (not sent: too long or control characters)");
		goto out;
	}
	if (!pingate_is_clean_value(user, NAME_MAX_LEN) ||
	    (len = build_request(pamh, opts, caller, request, op, user, secret, want_notice)) == 0) {
		set_no_answer(answer, "request not sent: a field is too long or holds control characters");
		goto out;
	}
	status = run_helper(pamh, opts, request, len, reply, sizeof(reply), why, sizeof(why));
	if (status < 0) {
		set_no_answer(answer, why);
		goto out;
	}
	reply_len = strlen(reply);
	if (reply_len == 0 || reply[reply_len - 1] != '\n') {
		snprintf(why, sizeof(why), "no answer line from %s (exit %d)", opts->helper, status);
		set_no_answer(answer, why);
		goto out;
	}
	reply[reply_len - 1] = '\0';
	if (!pingate_is_clean_value(reply, PINGATE_ANSWER_MAX)) {
		snprintf(why, sizeof(why), "garbled answer from %s (exit %d)", opts->helper, status);
		set_no_answer(answer, why);
		goto out;
	}
	memcpy(line, reply, reply_len);
	snprintf(answer->detail, sizeof(answer->detail), "%s", reply);
	if (!pingate_parse_answer(line, status, answer)) {
		snprintf(why, sizeof(why), "answer \"%s\" does not fit the protocol or exit %d",
			reply, status);
		set_no_answer(answer, why);
	}
out:
	explicit_bzero(request, sizeof(request));
	/* A malformed answer's reason describes the typed text: never logged. */
	if (opts->debug)
		pam_syslog(pamh, LOG_DEBUG, "%s request for %s: %s", op, pingate_log_text(user, name),
			answer->reply == PINGATE_REPLY_MALFORMED ? "malformed" : answer->detail);
	if (answer->reply >= PINGATE_REPLY_ERROR)
		pam_syslog(pamh, LOG_ERR, "%s request for %s failed: %s", op, pingate_log_text(user, name),
			answer->detail);
}
