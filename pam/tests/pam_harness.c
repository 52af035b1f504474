/*
 * pam_harness.c — drives one pam_authenticate() through a private PAM
 * config directory (pam_start_confdir, Linux-PAM >= 1.4), so module tests
 * need no root and no change to /etc/pam.d.
 *
 * Without --confdir it reads the system's stacks as any application does
 * (/etc/pam.d, then /usr/lib/pam.d, then "other").
 *
 * Prints a transcript on stdout, one line per conversation message:
 *   PROMPT_ECHO_OFF <text> | PROMPT_ECHO_ON <text> | INFO <text> | ERROR <text>
 * (a newline inside a message is printed as "\n"), answers prompts with
 * successive lines of stdin (EOF is a conversation error), then prints
 *   RESULT <PAM_CODE_NAME>
 * and exits with the PAM return code. --authtok TEXT puts TEXT in the PAM
 * environment for tests/pam_test_authtok.so, which makes it PAM_AUTHTOK.
 * Like any PAM application it first calls setlocale(LC_ALL, ""), so the
 * modules speak the language of LANG/LC_*.
 *
 * --ruser NAME sets PAM_RUSER, as su and sudo do. --env NAME=VALUE (up to 8
 * times) puts a variable in the PAM environment with pam_putenv before
 * pam_authenticate, as an application may. --host-child starts a
 * child of the harness's own that exits 100 ms into pam_authenticate, with
 * a SIGCHLD handler that reaps it, and then prints
 *   HOST_CHILD reaped|lost
 * — whether the application still learnt of its own child's exit.
 * --ignoring-host sets SIGCHLD to SIG_IGN (the kernel reaps the children)
 * and starts a child of its own that exits 100 ms into pam_authenticate,
 * then prints "HOST_CHILD gone|zombie" — whether it was left a zombie.
 * --reaping-host installs a SIGCHLD handler that reaps any child
 * (waitpid(-1, WNOHANG) until none), as many daemons and lockers do, and
 * prints "HOST_REAPED n" after pam_authenticate. --typing-ms N waits N ms
 * before each answer, as a person typing does.
 * --session SECONDS opens a session after a successful pam_authenticate,
 * as login does (pam_systemd makes this process the session's leader),
 * prints "SESSION <PAM_CODE_NAME>", holds it SECONDS and closes it.
 * --repeat N runs the whole authentication (pam_start to pam_end) N times in
 * this process with the same typed input (stdin must be a file: it is read
 * again from its start each time), as a lock screen that runs PAM over and
 * over with one buffer does; each round prints its transcript.
 *
 * usage: pam_harness [--confdir DIR] --service NAME --user USER [--rhost H]
 *                    [--ruser NAME] [--tty T] [--silent] [--authtok TEXT]
 *                    [--env NAME=VALUE]... [--host-child] [--repeat N]
 *                    [--reaping-host | --ignoring-host] [--typing-ms N]
 *                    [--session SECONDS]
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <security/pam_appl.h>

static const char *const code_names[] = {
	"PAM_SUCCESS", "PAM_OPEN_ERR", "PAM_SYMBOL_ERR", "PAM_SERVICE_ERR",
	"PAM_SYSTEM_ERR", "PAM_BUF_ERR", "PAM_PERM_DENIED", "PAM_AUTH_ERR",
	"PAM_CRED_INSUFFICIENT", "PAM_AUTHINFO_UNAVAIL", "PAM_USER_UNKNOWN",
	"PAM_MAXTRIES", "PAM_NEW_AUTHTOK_REQD", "PAM_ACCT_EXPIRED",
	"PAM_SESSION_ERR", "PAM_CRED_UNAVAIL", "PAM_CRED_EXPIRED", "PAM_CRED_ERR",
	"PAM_NO_MODULE_DATA", "PAM_CONV_ERR", "PAM_AUTHTOK_ERR",
	"PAM_AUTHTOK_RECOVERY_ERR", "PAM_AUTHTOK_LOCK_BUSY",
	"PAM_AUTHTOK_DISABLE_AGING", "PAM_TRY_AGAIN", "PAM_IGNORE", "PAM_ABORT",
	"PAM_AUTHTOK_EXPIRED", "PAM_MODULE_UNKNOWN", "PAM_BAD_ITEM",
	"PAM_CONV_AGAIN", "PAM_INCOMPLETE",
};

static void print_message(const char *tag, const char *text)
{
	fputs(tag, stdout);
	putchar(' ');
	for (; text != NULL && *text != '\0'; text++) {
		if (*text == '\n')
			fputs("\\n", stdout);
		else
			putchar(*text);
	}
	putchar('\n');
	fflush(stdout);
}

static unsigned typing_ms;

static char *read_answer(void)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;

	if (typing_ms > 0)
		usleep(typing_ms * 1000);
	len = getline(&line, &size, stdin);
	if (len < 0) {
		free(line);
		return NULL;
	}
	if (len > 0 && line[len - 1] == '\n')
		line[len - 1] = '\0';
	return line;
}

static int converse(int count, const struct pam_message **messages,
		struct pam_response **responses, void *data)
{
	struct pam_response *replies = calloc((size_t)count, sizeof(*replies));
	int i;

	(void)data;
	if (replies == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < count; i++) {
		const struct pam_message *m = messages[i];

		switch (m->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			print_message(m->msg_style == PAM_PROMPT_ECHO_OFF ?
				"PROMPT_ECHO_OFF" : "PROMPT_ECHO_ON", m->msg);
			replies[i].resp = read_answer();
			if (replies[i].resp == NULL)
				goto fail;
			break;
		case PAM_TEXT_INFO:
			print_message("INFO", m->msg);
			break;
		case PAM_ERROR_MSG:
			print_message("ERROR", m->msg);
			break;
		default:
			goto fail;
		}
	}
	*responses = replies;
	return PAM_SUCCESS;
fail:
	for (i = 0; i < count; i++)
		free(replies[i].resp);
	free(replies);
	return PAM_CONV_ERR;
}

static void usage(void)
{
	fputs("usage: pam_harness [--confdir DIR] --service NAME --user USER [--rhost H] "
	      "[--ruser NAME] [--tty T] [--silent] [--authtok TEXT] [--env NAME=VALUE]... [--host-child]\n"
	      "                   [--reaping-host | --ignoring-host] [--typing-ms N] [--repeat N] [--session SECONDS]\n", stderr);
	exit(2);
}

static volatile sig_atomic_t host_child_reaped;
static pid_t host_child;

static void on_sigchld(int signo)
{
	(void)signo;
	if (host_child > 0 && waitpid(host_child, NULL, WNOHANG) == host_child)
		host_child_reaped = 1;
}

static volatile sig_atomic_t any_child_reaped;

static void reap_any_child(int signo)
{
	int saved = errno;

	(void)signo;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		any_child_reaped++;
	errno = saved;
}

static void become_reaping_host(void)
{
	struct sigaction action = { .sa_handler = reap_any_child };

	sigemptyset(&action.sa_mask);
	sigaction(SIGCHLD, &action, NULL);
}

/* A child of the harness's own that exits 100 ms into pam_authenticate. */
static void fork_host_child(void)
{
	host_child = fork();
	if (host_child == 0) {
		usleep(100000);
		_exit(0);
	}
}

static void start_ignored_host_child(void)
{
	signal(SIGCHLD, SIG_IGN);
	fork_host_child();
}

/* "zombie" if the host's child is one now (state Z in /proc/PID/stat), else "gone". */
static const char *host_child_state(void)
{
	char path[64], line[512], *end;
	FILE *stat;
	bool zombie = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)host_child);
	if ((stat = fopen(path, "r")) == NULL)
		return "gone";
	if (fgets(line, sizeof(line), stat) != NULL && (end = strrchr(line, ')')) != NULL)
		zombie = end[1] == ' ' && end[2] == 'Z';
	fclose(stat);
	return zombie ? "zombie" : "gone";
}

static void start_host_child(void)
{
	struct sigaction action = { .sa_handler = on_sigchld };

	sigemptyset(&action.sa_mask);
	sigaction(SIGCHLD, &action, NULL);
	fork_host_child();
}

/* What the command line asks for: one authentication's settings. */
struct harness_run {
	const char *confdir, *service, *user, *rhost, *tty, *authtok, *ruser;
	const char *env[8];
	int envs, flags, with_host_child, reaping_host, ignoring_host;
	int session_seconds;
};

static void print_code(const char *what, int rc)
{
	if (rc >= 0 && (size_t)rc < sizeof(code_names) / sizeof(code_names[0]))
		printf("%s %s\n", what, code_names[rc]);
	else
		printf("%s %d\n", what, rc);
	fflush(stdout);
}

/* --session: open a session as login does, hold it, close it. */
static int hold_session(pam_handle_t *pamh, int seconds)
{
	int rc = pam_open_session(pamh, 0);

	print_code("SESSION", rc);
	if (rc != PAM_SUCCESS)
		return rc;
	sleep((unsigned)seconds);
	return pam_close_session(pamh, 0);
}

/* One application's authentication, pam_start to pam_end; prints its result. */
static int authenticate_once(const struct harness_run *run)
{
	struct pam_conv conv = { converse, NULL };
	pam_handle_t *pamh = NULL;
	int rc, i;

	rc = pam_start_confdir(run->service, run->user, &conv, run->confdir, &pamh);
	if (rc == PAM_SUCCESS && run->rhost != NULL)
		rc = pam_set_item(pamh, PAM_RHOST, run->rhost);
	if (rc == PAM_SUCCESS && run->ruser != NULL)
		rc = pam_set_item(pamh, PAM_RUSER, run->ruser);
	if (rc == PAM_SUCCESS && run->tty != NULL)
		rc = pam_set_item(pamh, PAM_TTY, run->tty);
	/* Applications may not set PAM_AUTHTOK: pam_test_authtok.so `set` copies this. */
	if (rc == PAM_SUCCESS && run->authtok != NULL) {
		char *variable = malloc(strlen(run->authtok) + sizeof("PINGATE_TEST_AUTHTOK="));

		if (variable == NULL)
			rc = PAM_BUF_ERR;
		else {
			sprintf(variable, "PINGATE_TEST_AUTHTOK=%s", run->authtok);
			rc = pam_putenv(pamh, variable);
			free(variable);
		}
	}
	for (i = 0; i < run->envs && rc == PAM_SUCCESS; i++)
		rc = pam_putenv(pamh, run->env[i]);
	if (rc == PAM_SUCCESS && run->with_host_child)
		start_host_child();
	if (rc == PAM_SUCCESS && run->reaping_host)
		become_reaping_host();
	if (rc == PAM_SUCCESS && run->ignoring_host)
		start_ignored_host_child();
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(pamh, run->flags);
	if (run->reaping_host)
		printf("HOST_REAPED %d\n", (int)any_child_reaped);
	if (run->ignoring_host) {
		usleep(200000);  /* the child has exited by now */
		printf("HOST_CHILD %s\n", host_child_state());
	}
	if (run->with_host_child) {
		usleep(200000);  /* a SIGCHLD still pending arrives by now */
		printf("HOST_CHILD %s\n", host_child_reaped ? "reaped" : "lost");
	}

	print_code("RESULT", rc);
	if (rc == PAM_SUCCESS && run->session_seconds > 0)
		rc = hold_session(pamh, run->session_seconds);
	if (pamh != NULL)
		pam_end(pamh, rc);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "confdir", required_argument, NULL, 'c' },
		{ "service", required_argument, NULL, 's' },
		{ "user",    required_argument, NULL, 'u' },
		{ "rhost",   required_argument, NULL, 'r' },
		{ "tty",     required_argument, NULL, 't' },
		{ "silent",  no_argument,       NULL, 'q' },
		{ "authtok", required_argument, NULL, 'a' },
		{ "ruser",   required_argument, NULL, 'R' },
		{ "host-child", no_argument,    NULL, 'H' },
		{ "env",     required_argument, NULL, 'e' },
		{ "repeat",  required_argument, NULL, 'n' },
		{ "reaping-host", no_argument,  NULL, 'P' },
		{ "ignoring-host", no_argument, NULL, 'I' },
		{ "typing-ms", required_argument, NULL, 'T' },
		{ "session", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct harness_run run = { 0 };
	int option, rc, rounds = 1, round;

	setlocale(LC_ALL, "");
	while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (option) {
		case 'c': run.confdir = optarg; break;
		case 's': run.service = optarg; break;
		case 'u': run.user = optarg; break;
		case 'r': run.rhost = optarg; break;
		case 't': run.tty = optarg; break;
		case 'q': run.flags |= PAM_SILENT; break;
		case 'a': run.authtok = optarg; break;
		case 'R': run.ruser = optarg; break;
		case 'H': run.with_host_child = 1; break;
		case 'n': rounds = atoi(optarg); break;
		case 'P': run.reaping_host = 1; break;
		case 'I': run.ignoring_host = 1; break;
		case 'T': typing_ms = (unsigned)atoi(optarg); break;
		case 'S': run.session_seconds = atoi(optarg); break;
		case 'e':
			if (run.envs == 8)
				usage();
			run.env[run.envs++] = optarg;
			break;
		default: usage();
		}
	}
	if (run.service == NULL || run.user == NULL || optind != argc || rounds < 1 ||
	    (rounds > 1 && (run.with_host_child || run.ignoring_host || run.session_seconds > 0)) ||
	    run.with_host_child + run.reaping_host + run.ignoring_host > 1)
		usage();

	for (round = 1; ; round++) {
		rc = authenticate_once(&run);
		if (round == rounds)
			return rc;
		/* The same typed input again: the buffer a retrying client keeps. */
		if (fseek(stdin, 0, SEEK_SET) != 0) {
			perror("pam_harness: --repeat needs stdin from a file");
			return PAM_SYSTEM_ERR;
		}
	}
}
