/*
 * pam_bench.c — the timing driver of packaging/benchmarks/run.sh.
 *
 * PAM mode: P worker processes each run W untimed, then N timed, complete
 * authentications (pam_start_confdir, pam_authenticate, pam_end — what sudo
 * does per attempt) through real libpam, answering every prompt with SECRET.
 * Worker i authenticates users[i % count]; with --as-user it first drops to
 * that user's uid/gid (no supplementary groups), like a screen locker, so
 * pam_unix must exec unix_chkpwd. The workers start together after their
 * warm-up; the wall time runs from that start to the last worker's end.
 *
 * Exec mode (--exec PATH --stdin FILE): N times fork, exec PATH with FILE on
 * stdin and /dev/null on stdout, and wait — exec to exit of a helper. With
 * --follow-up FILE2, FILE2 is on descriptor 3: the verify that follows a
 * status asked with then=verify (pingate_protocol.h, FOLLOW-UP). With --arg
 * ARG, PATH gets that one argument (compare.sh: an argument the helper
 * refuses, so that it starts, logs the refusal and exits, reading no request).
 *
 * Prints one line of key=value pairs (times in microseconds):
 *   n= ok= fail= median= p95= mean= min= max= wall_ms= per_s= cpu=
 * (cpu: user+system time of the workers and everything they ran, per
 * authentication, warm-up included — steadier than wall time on a busy host)
 * and with --raw FILE every latency, one a line.
 *
 * The floor (--fdatasync FILE, with or without --exec): each sample is the
 * exec, if any, then two 512-byte pwrites into FILE's two slots, each followed
 * by fdatasync — a helper that does nothing but write a record's two states
 * to the disk, as a sign-in's count and clear once did. With --exec /bin/true
 * this is the floor of run.sh section 5 and compare.sh, timed as a sign-in
 * is: no tracer (strace -T doubled an fdatasync here), and each sync after an
 * exec rather than back to back. FILE should be on the store's file system;
 * it is created if missing.
 *
 * --ballast MB: each worker first fills MB of memory of its own, as a lock
 * screen inside a desktop shell holds hundreds of MB, so the sign-in is
 * timed from a host whose fork would copy page tables for all of it.
 *
 * usage: pam_bench --confdir DIR --service NAME --user U[,U...] --secret S
 *                  [--iterations N] [--warmup W] [--parallel P] [--as-user]
 *                  [--raw FILE] [--ballast MB]
 *        pam_bench --exec PATH [--arg ARG] --stdin FILE [--follow-up FILE2] [--iterations N] [--warmup W]
 *        pam_bench [--exec PATH --stdin FILE] --fdatasync FILE [--iterations N] [--warmup W]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_appl.h>

static const char *secret;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int converse(int count, const struct pam_message **messages,
		struct pam_response **responses, void *data)
{
	struct pam_response *replies = calloc((size_t)count, sizeof(*replies));

	(void)data;
	if (replies == NULL)
		return PAM_BUF_ERR;
	for (int i = 0; i < count; i++)
		if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
		    messages[i]->msg_style == PAM_PROMPT_ECHO_ON)
			replies[i].resp = strdup(secret);
	*responses = replies;
	return PAM_SUCCESS;
}

static int authenticate_once(const char *confdir, const char *service, const char *user)
{
	struct pam_conv conv = { converse, NULL };
	pam_handle_t *pamh = NULL;
	int rc = pam_start_confdir(service, user, &conv, confdir, &pamh);

	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(pamh, PAM_SILENT);
	if (pamh != NULL)
		pam_end(pamh, rc);
	return rc;
}

static const char *follow_up, *exec_arg;

static int exec_once(const char *path, const char *input)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int in = open(input, O_RDONLY), out = open("/dev/null", O_WRONLY);
		int next = follow_up != NULL ? open(follow_up, O_RDONLY) : -1;

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(127);
		if (follow_up != NULL && (next < 0 || dup2(next, 3) < 0))
			_exit(127);
		execl(path, path, exec_arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int sync_fd = -1;

static int write_both_slots(int i)
{
	char slot[512];

	for (int half = 0; half < 2; half++) {
		memset(slot, (2 * i + half) & 0xff, sizeof(slot));
		if (pwrite(sync_fd, slot, sizeof(slot), (off_t)half * (off_t)sizeof(slot)) != (ssize_t)sizeof(slot) ||
		    fdatasync(sync_fd) != 0)
			return -1;
	}
	return 0;
}

/* One timed sample: an exec, two synced slot writes, or both (the floor). */
static int sample_once(int i, const char *exec_path, const char *input)
{
	int rc = exec_path != NULL ? exec_once(exec_path, input) : 0;

	return sync_fd >= 0 && rc == 0 ? write_both_slots(i) : rc;
}

static int compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void drop_to(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (pw == NULL || setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 ||
	    setuid(pw->pw_uid) != 0) {
		fprintf(stderr, "pam_bench: cannot become %s\n", user);
		_exit(2);
	}
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "confdir", required_argument, NULL, 'c' },
		{ "service", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "secret", required_argument, NULL, 'p' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "as-user", no_argument, NULL, 'a' },
		{ "exec", required_argument, NULL, 'e' },
		{ "stdin", required_argument, NULL, 'i' },
		{ "follow-up", required_argument, NULL, 'f' },
		{ "arg", required_argument, NULL, 'A' },
		{ "raw", required_argument, NULL, 'r' },
		{ "ballast", required_argument, NULL, 'b' },
		{ "fdatasync", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *confdir = NULL, *service = NULL, *exec_path = NULL, *input = NULL, *raw = NULL, *sync_path = NULL;
	char *users[1024];
	int user_count = 0, iterations = 100, warmup = 3, parallel = 1, as_user = 0, option;
	size_t ballast_mb = 0;

	while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (option) {
		case 'c': confdir = optarg; break;
		case 's': service = optarg; break;
		case 'u':
			for (char *save = NULL, *name = strtok_r(optarg, ",", &save);
			     name != NULL && user_count < 1024; name = strtok_r(NULL, ",", &save))
				users[user_count++] = name;
			break;
		case 'p': secret = optarg; break;
		case 'n': iterations = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'P': parallel = atoi(optarg); break;
		case 'a': as_user = 1; break;
		case 'e': exec_path = optarg; break;
		case 'i': input = optarg; break;
		case 'f': follow_up = optarg; break;
		case 'A': exec_arg = optarg; break;
		case 'r': raw = optarg; break;
		case 'b': ballast_mb = (size_t)atol(optarg); break;
		case 'd': sync_path = optarg; break;
		default: return 2;
		}
	}
	/* Three modes, never mixed: PAM, exec (with its input), the floor. */
	int pam_mode = confdir != NULL || service != NULL || user_count > 0 || secret != NULL;
	if ((exec_path != NULL && input == NULL) || (exec_arg != NULL && exec_path == NULL) || (pam_mode && (exec_path != NULL || sync_path != NULL)) ||
	    (!pam_mode && exec_path == NULL && sync_path == NULL) ||
	    (pam_mode && (confdir == NULL || service == NULL || user_count == 0 || secret == NULL)))
		return fprintf(stderr, "pam_bench: see the usage at the top of pam_bench.c\n"), 2;
	if (sync_path != NULL && (sync_fd = open(sync_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return perror(sync_path), 1;
	if (iterations < 1 || parallel < 1 || warmup < 0)
		return 2;

	size_t total = (size_t)iterations * (size_t)parallel;
	/* Latencies, then one result per sample, shared with the workers. */
	uint64_t *lat = mmap(NULL, total * 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *res = lat + total;
	int go[2], ready[2];

	if (lat == MAP_FAILED || pipe(go) != 0 || pipe(ready) != 0)
		return perror("pam_bench"), 1;
	for (int w = 0; w < parallel; w++) {
		pid_t pid = fork();

		if (pid < 0)
			return perror("fork"), 1;
		if (pid > 0)
			continue;
		const char *user = user_count > 0 ? users[w % user_count] : NULL;
		char byte;

		close(go[1]);
		close(ready[0]);
		if (as_user && exec_path == NULL)
			drop_to(user);
		if (ballast_mb > 0) {
			char *ballast = malloc(ballast_mb << 20);

			if (ballast == NULL)
				_exit(2);
			memset(ballast, 1, ballast_mb << 20);
		}
		for (int i = 0; i < warmup; i++)
			sync_path || exec_path ? sample_once(i, exec_path, input) : authenticate_once(confdir, service, user);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &byte, 1) < 0)
			_exit(2);
		for (int i = 0; i < iterations; i++) {
			uint64_t start = now_ns();
			int rc = sync_path || exec_path ? sample_once(i, exec_path, input) :
				authenticate_once(confdir, service, user);

			lat[(size_t)w * iterations + i] = now_ns() - start;
			res[(size_t)w * iterations + i] = (uint64_t)(rc == 0);
		}
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	for (int w = 0; w < parallel; w++) {
		char byte;

		if (read(ready[0], &byte, 1) != 1)
			return fprintf(stderr, "pam_bench: a worker died in warm-up\n"), 1;
	}
	uint64_t start = now_ns();

	close(go[1]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	uint64_t wall = now_ns() - start;
	struct rusage usage;

	getrusage(RUSAGE_CHILDREN, &usage);
	double cpu_us = usage.ru_utime.tv_sec * 1e6 + usage.ru_utime.tv_usec +
		usage.ru_stime.tv_sec * 1e6 + usage.ru_stime.tv_usec;
	size_t ok = 0;
	uint64_t sum = 0;

	for (size_t i = 0; i < total; i++) {
		ok += res[i];
		sum += lat[i];
	}
	if (raw != NULL) {
		FILE *file = fopen(raw, "w");

		for (size_t i = 0; file != NULL && i < total; i++)
			fprintf(file, "%.1f\n", lat[i] / 1e3);
		if (file != NULL)
			fclose(file);
	}
	qsort(lat, total, sizeof(*lat), compare);
	printf("n=%zu ok=%zu fail=%zu median=%.0f p95=%.0f mean=%.0f min=%.0f max=%.0f wall_ms=%.1f per_s=%.1f cpu=%.0f\n",
	       total, ok, total - ok, lat[total / 2] / 1e3, lat[(total * 95 + 99) / 100 - 1] / 1e3,
	       (double)sum / total / 1e3, lat[0] / 1e3, lat[total - 1] / 1e3, wall / 1e6,
	       ok / (wall / 1e9), cpu_us / ((size_t)(iterations + warmup) * parallel));
	return ok == total ? 0 : 1;
}
