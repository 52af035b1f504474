/*
 * gnome_unlock.c — what GNOME 48 does when a person unlocks the screen or
 * signs in at the login screen, for tests on machines where GNOME Shell
 * cannot run. Each step is the one of the named source file, as read at the
 * tags gdm 48.0 (commit 2397f037d9) and gnome-shell 48.0 (a2ffd14a35; the
 * changes up to 48.8, efadeecbe6, were read too and alter none of the steps
 * below: message timing, focus and accessibility only):
 *
 *  - gdm 48's daemon/gdm-session-worker.c runs PAM as root, one worker (here
 *    one process) per conversation, each with its own handle:
 *    gdm_session_worker_initialize_pam() calls pam_start(service, user); for
 *    a display that is not local (XDMCP, gnome-remote-desktop) it sets
 *    PAM_RHOST to the display's host name, or "0.0.0.0" when it has none,
 *    and password_is_required; only at seat0 with VTs (sd_seat_can_tty) it
 *    sets PAM_TTY to /dev/tty<GDM_INITIAL_VT> (1). (gdm 43 set PAM_RHOST
 *    whenever it knew a host name, and PAM_TTY always.) PAM_XDISPLAY and
 *    PAM_XAUTHDATA are set only later, by set_up_for_current_vt() before
 *    pam_open_session, never before pam_authenticate.
 *    gdm_session_worker_authenticate_user() calls pam_authenticate with
 *    PAM_DISALLOW_NULL_AUTHTOK when password_is_required, else 0 (never
 *    PAM_SILENT); gdm_session_worker_authorize_user() calls pam_acct_mgmt
 *    with the same flag (pam_chauthtok on PAM_NEW_AUTHTOK_REQD), whose
 *    result a reauthentication (unlocking) ignores;
 *    gdm_session_worker_accredit_user() calls pam_setcred with
 *    PAM_REINITIALIZE_CRED when unlocking, PAM_ESTABLISH_CRED at the login
 *    screen (gdm_session_worker_handle_establish_credentials), its result
 *    again ignored when unlocking.
 *    gdm_session_worker_process_pam_message() hands PAM_PROMPT_ECHO_ON to
 *    the shell as an info-query, PAM_PROMPT_ECHO_OFF as a
 *    secret-info-query, PAM_TEXT_INFO as info and PAM_ERROR_MSG as a
 *    problem, each with the name of its service. A failed pam_authenticate:
 *    PAM_AUTHINFO_UNAVAIL and (new in 48) PAM_MODULE_UNKNOWN are "service
 *    unavailable" with no message; PAM_MAXTRIES is "too many retries" with
 *    get_max_retries_error_message(); anything else a problem with
 *    get_friendly_error_message()'s text (PAM_USER_UNKNOWN as PAM_AUTH_ERR).
 *    daemon/gdm-session.c report_and_stop_conversation() then stops the
 *    conversation.
 *  - gnome-shell 48's js/gdm/util.js (ShellUserVerifier):
 *    _beginVerification() starts the foreground service — gdm-password, or
 *    gdm-smartcard when a smartcard with a login token is inserted and
 *    org.gnome.login-screen enable-smartcard-authentication is on
 *    (_checkForSmartcard: it preempts; gdm-password is then not started at
 *    all) — and, through _maybeStartFingerprintVerification(), gdm-fingerprint
 *    beside it when a fingerprint reader is there and
 *    enable-fingerprint-authentication is on. Only the foreground service's
 *    questions are shown (_onInfoQuery, _onSecretInfoQuery return for any
 *    other: the question stays unanswered until the conversation is
 *    stopped); its info and problems are shown under the entry; of
 *    gdm-fingerprint, each info is replaced by "(or place finger on reader)"
 *    (a hint-styled message) and each problem is shown (_onInfo,
 *    _onProblem). When a conversation stops without success
 *    (_onConversationStopped): nothing more for a service reported
 *    unavailable (_onServiceUnavailable shows its message, if any);
 *    otherwise a foreground failure is counted and _verificationFailed()
 *    retries that service (_retry) while _canRetry(): always when unlocking
 *    (reauthenticationOnly), at the login screen while fewer than
 *    allowed-failures (3) have failed; then it gives up (_cancelAndReset:
 *    the login screen goes back to its user list).
 *  - gnome-shell 48's js/gdm/authPrompt.js: _onAskQuestion() shows a
 *    question as the entry's hint: "Password:" becomes the translated
 *    "Password", any other text loses /[:：] *$/ (48 added the full-width
 *    colon) and is trimmed. Text the person entered before a question
 *    arrived (_activateNext with no query pending: _preemptiveAnswer)
 *    answers the next question at once, without showing it; reset()
 *    forgets it.
 *
 * Transcript on stdout, one line per thing the person sees:
 *   HINT <the entry's hint> | INFO <text> | ERROR <text> | NOTE <hint-styled
 *   message> | RESULT unlocked|signed in|unlocked by <service>|cancelled|
 *   unavailable|reset
 * and, for the tests, lines of what nobody sees:
 *   UNSEEN <service> <question>     a question of a service not in the
 *                                   foreground (never shown, never answered)
 *   BESIDE <service> <PAM code>     how a conversation beside the foreground
 *                                   one ended
 * Each line of stdin is what the person types into the entry before
 * pressing Enter; at EOF they walk away (the conversation is cancelled).
 *
 * usage: gnome_unlock --user USER [--service gdm-password] [--confdir DIR]
 *          [--preemptive TEXT]   TEXT typed and entered before the first
 *                                question arrived
 *          [--fingerprint]       a fingerprint reader: gdm-fingerprint runs
 *                                beside the foreground service
 *          [--smartcard]         a smartcard with a login token inserted:
 *                                gdm-smartcard is the foreground service
 *          [--remote HOST]       a remote display (PAM_RHOST HOST, or
 *                                0.0.0.0 for ""; no seat, so no PAM_TTY)
 *          [--login]             the login screen, not the lock screen
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <security/pam_appl.h>

/* gdm 48, daemon/gdm-session-worker.c: get_generic_error_message(). */
static const char *gdm_failed_message(const char *service)
{
	if (strcmp(service, "gdm-password") == 0)
		return "Sorry, password authentication didn’t work. Please try again.";
	if (strcmp(service, "gdm-autologin") == 0)
		return "Sorry, auto login didn’t work. Please try again.";
	if (strcmp(service, "gdm-fingerprint") == 0)
		return "Sorry, fingerprint authentication didn’t work. Please try again.";
	if (strcmp(service, "gdm-smartcard") == 0)
		return "Sorry, smart card authentication didn’t work. Please try again.";
	return "Sorry, that didn’t work. Please try again.";
}

/* gdm 48: get_max_retries_error_message(). */
static const char *gdm_max_retries_message(const char *service)
{
	if (strcmp(service, "gdm-password") == 0)
		return "You reached the maximum password authentication attempts, please try another method";
	if (strcmp(service, "gdm-fingerprint") == 0)
		return "You reached the maximum fingerprint authentication attempts, please try another method";
	if (strcmp(service, "gdm-smartcard") == 0)
		return "You reached the maximum smart card authentication attempts, please try another method";
	return "You reached the maximum authentication attempts, please try another method";
}

/* gdm 48: get_friendly_error_message(), for a failure that is a problem. */
static const char *gdm_problem_message(const char *service, int rc)
{
	if (rc == PAM_ACCT_EXPIRED || rc == PAM_AUTHTOK_EXPIRED)
		return "Your account was given a time limit that’s now passed.";
	return gdm_failed_message(service);
}

static const char *pam_code_name(int rc)
{
	switch (rc) {
	case PAM_SUCCESS: return "PAM_SUCCESS";
	case PAM_AUTH_ERR: return "PAM_AUTH_ERR";
	case PAM_CONV_ERR: return "PAM_CONV_ERR";
	case PAM_AUTHINFO_UNAVAIL: return "PAM_AUTHINFO_UNAVAIL";
	case PAM_MODULE_UNKNOWN: return "PAM_MODULE_UNKNOWN";
	case PAM_MAXTRIES: return "PAM_MAXTRIES";
	case PAM_USER_UNKNOWN: return "PAM_USER_UNKNOWN";
	case PAM_PERM_DENIED: return "PAM_PERM_DENIED";
	case PAM_SYSTEM_ERR: return "PAM_SYSTEM_ERR";
	case PAM_IGNORE: return "PAM_IGNORE";
	case PAM_ABORT: return "PAM_ABORT";
	default: return "PAM_OTHER";
	}
}

struct settings {
	const char *user, *confdir;
	const char *rhost;        /* NULL: a local display at seat0 */
	int login;                /* the login screen (not a reauthentication) */
};

struct person {
	char *preemptive_answer;  /* authPrompt.js _preemptiveAnswer */
	int questions;            /* asked in this conversation */
	int walked_away;          /* stdin ended at a question */
	int verified_beside;      /* a conversation beside this one succeeded */
	int beside_fd;            /* its report: a byte when it succeeded; -1 */
};

/* A conversation beside the foreground one (gdm-fingerprint). */
struct beside {
	const char *service;
	int stop_fd;              /* EOF when the foreground conversation ended */
};

static void show(const char *tag, const char *text)
{
	printf("%s %s\n", tag, text);
	fflush(stdout);
}

static int is_js_space(const unsigned char *p, size_t left, size_t *width)
{
	/* String.prototype.trim(): ASCII white space, NBSP, the ideographic space. */
	if (left >= 1 && (p[0] == ' ' || (p[0] >= '\t' && p[0] <= '\r'))) { *width = 1; return 1; }
	if (left >= 2 && p[0] == 0xc2 && p[1] == 0xa0) { *width = 2; return 1; }
	if (left >= 3 && p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) { *width = 3; return 1; }
	if (left >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) { *width = 3; return 1; }
	return 0;
}

/* authPrompt.js _onAskQuestion: "Password:" translated, else
 * question.replace(/[:：] *$/, '').trim(). */
static void show_question_as_hint(const char *question)
{
	const unsigned char *text = (const unsigned char *)question;
	size_t start = 0, end = strlen(question), cut = end, width;

	if (strcmp(question, "Password:") == 0 || strcmp(question, "Password: ") == 0) {
		show("HINT", "Password");
		return;
	}
	while (cut > 0 && text[cut - 1] == ' ')
		cut--;
	if (cut > 0 && text[cut - 1] == ':')
		end = cut - 1;
	else if (cut >= 3 && memcmp(text + cut - 3, "\xef\xbc\x9a", 3) == 0)   /* ： */
		end = cut - 3;
	for (;;) {   /* trim the end: the longest white space sequence that ends there */
		size_t i, found = end;
		for (i = start; i < end; i++)
			if (is_js_space(text + i, end - i, &width) && i + width == end) { found = i; break; }
		if (found == end)
			break;
		end = found;
	}
	while (start < end && is_js_space(text + start, end - start, &width))
		start += width;
	printf("HINT %.*s\n", (int)(end - start), question + start);
	fflush(stdout);
}

/* What the person types, a line at a time, read from fd 0 without stdio's
 * buffer, so that poll() also sees a conversation beside this one succeed
 * while the person has not typed yet (util.js: verification-complete of any
 * service unlocks). NULL: they walked away, or the screen was unlocked by
 * another service. */
static char typed[8192];
static size_t typed_used;

static char *typed_line(struct person *person)
{
	for (;;) {
		char *newline = memchr(typed, '\n', typed_used);
		if (newline != NULL) {
			size_t length = (size_t)(newline - typed);
			char *line = strndup(typed, length);
			memmove(typed, newline + 1, typed_used - length - 1);
			typed_used -= length + 1;
			return line;
		}
		struct pollfd fds[2] = { { 0, POLLIN, 0 }, { person->beside_fd, POLLIN, 0 } };
		if (poll(fds, person->beside_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (person->beside_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) {
			char byte;
			if (read(person->beside_fd, &byte, 1) == 1) {
				person->verified_beside = 1;
				return NULL;
			}
			person->beside_fd = -1;   /* ended without success */
		}
		if (fds[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(0, typed + typed_used, sizeof(typed) - typed_used - 1);
			if (n <= 0) {
				if (typed_used == 0)
					return NULL;
				char *line = strndup(typed, typed_used);   /* a last line without newline */
				typed_used = 0;
				return line;
			}
			typed_used += (size_t)n;
		}
	}
}

static char *answer_question(struct person *person, const char *question)
{
	char *answer;

	person->questions++;
	if (person->preemptive_answer != NULL) {
		answer = person->preemptive_answer;
		person->preemptive_answer = NULL;
		return answer;
	}
	show_question_as_hint(question);
	answer = typed_line(person);
	if (answer == NULL && !person->verified_beside)
		person->walked_away = 1;
	return answer;
}

static int converse(int count, const struct pam_message **messages,
		struct pam_response **responses, void *data)
{
	struct person *person = data;
	struct pam_response *replies = calloc((size_t)count, sizeof(*replies));
	int i;

	if (replies == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < count; i++) {
		switch (messages[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			replies[i].resp = answer_question(person, messages[i]->msg);
			if (replies[i].resp == NULL)
				goto cancelled;
			break;
		case PAM_TEXT_INFO:
			show("INFO", messages[i]->msg);
			break;
		case PAM_ERROR_MSG:
			show("ERROR", messages[i]->msg);
			break;
		default:
			goto cancelled;
		}
	}
	*responses = replies;
	return PAM_SUCCESS;
cancelled:
	for (i = 0; i < count; i++)
		free(replies[i].resp);
	free(replies);
	return PAM_CONV_ERR;
}

/* The conversation of a service beside the foreground one: util.js _onInfo
 * (a fingerprint reader's info becomes "(or place finger on reader)"),
 * _onProblem (shown), _onInfoQuery/_onSecretInfoQuery (ignored: the worker
 * waits for an answer that never comes, until gdm stops the conversation). */
static int converse_beside(int count, const struct pam_message **messages,
		struct pam_response **responses, void *data)
{
	struct beside *beside = data;
	struct pam_response *replies = calloc((size_t)count, sizeof(*replies));
	char byte;
	int i;

	if (replies == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < count; i++) {
		switch (messages[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			printf("UNSEEN %s %s\n", beside->service, messages[i]->msg);
			fflush(stdout);
			while (read(beside->stop_fd, &byte, 1) > 0)
				;
			free(replies);
			return PAM_CONV_ERR;   /* the conversation was stopped */
		case PAM_TEXT_INFO:
			show("NOTE", "(or place finger on reader)");
			break;
		case PAM_ERROR_MSG:
			show("ERROR", messages[i]->msg);
			break;
		default:
			free(replies);
			return PAM_CONV_ERR;
		}
	}
	*responses = replies;   /* gdm answers every message, info too */
	return PAM_SUCCESS;
}

/* One conversation of a worker: a new PAM handle, as gdm starts one per attempt. */
static int one_conversation(const char *service, const struct settings *settings,
		const struct pam_conv *conv)
{
	pam_handle_t *pamh = NULL;
	/* password_is_required: a display that is not local. */
	int flags = settings->rhost != NULL ? PAM_DISALLOW_NULL_AUTHTOK : 0;
	int rc = pam_start_confdir(service, settings->user, conv, settings->confdir, &pamh);

	if (rc != PAM_SUCCESS)
		return PAM_AUTHINFO_UNAVAIL;   /* gdm: service unavailable */
	if (settings->rhost != NULL)
		rc = pam_set_item(pamh, PAM_RHOST, settings->rhost[0] != '\0' ? settings->rhost : "0.0.0.0");
	else   /* seat0, which has VTs */
		rc = pam_set_item(pamh, PAM_TTY, "/dev/tty1");
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(pamh, flags);
	if (rc == PAM_SUCCESS) {
		int account = pam_acct_mgmt(pamh, flags);
		if (account == PAM_NEW_AUTHTOK_REQD)
			account = pam_chauthtok(pamh, PAM_CHANGE_EXPIRED_AUTHTOK);
		if (settings->login)
			rc = account;   /* a reauthentication ignores it */
	}
	if (rc == PAM_SUCCESS) {
		int cred = pam_setcred(pamh, settings->login ? PAM_ESTABLISH_CRED : PAM_REINITIALIZE_CRED);
		if (settings->login)
			rc = cred;
	}
	pam_end(pamh, rc);
	return rc;
}

/* gdm-session-worker.c authenticate_user: these end the service, not the try. */
static int service_unavailable(int rc)
{
	return rc == PAM_AUTHINFO_UNAVAIL || rc == PAM_MODULE_UNKNOWN || rc == PAM_MAXTRIES;
}

/* A worker of its own for a service beside the foreground one; writes a byte
 * to report_fd when it verified the user. util.js retries it after a failure
 * (_verificationFailed → _retry) as long as it is not unavailable; the same
 * stack gives the same answer each time, so this stops after three. */
static pid_t start_beside(const char *service, const struct settings *settings,
		int *report_fd, int *stop_fd)
{
	int report[2], stop[2];
	pid_t pid;

	if (pipe(report) != 0 || pipe(stop) != 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct beside beside = { service, stop[0] };
		struct pam_conv conv = { converse_beside, &beside };
		int devnull = open("/dev/null", O_RDONLY), runs, rc = PAM_AUTH_ERR;

		close(report[0]);
		close(stop[1]);
		if (devnull >= 0) {
			dup2(devnull, 0);
			close(devnull);
		}
		for (runs = 0; runs < 3; runs++) {
			struct pollfd stopped = { stop[0], POLLIN, 0 };
			if (poll(&stopped, 1, 0) > 0)
				break;
			rc = one_conversation(service, settings, &conv);
			printf("BESIDE %s %s\n", service, pam_code_name(rc));
			fflush(stdout);
			if (rc == PAM_SUCCESS) {
				if (write(report[1], "S", 1) != 1)
					_exit(1);
				_exit(0);
			}
			if (service_unavailable(rc))
				break;
		}
		_exit(1);
	}
	close(report[1]);
	close(stop[0]);
	if (pid < 0) {
		close(report[0]);
		close(stop[1]);
		return -1;
	}
	*report_fd = report[0];
	*stop_fd = stop[1];
	return pid;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "service",     required_argument, NULL, 's' },
		{ "user",        required_argument, NULL, 'u' },
		{ "confdir",     required_argument, NULL, 'c' },
		{ "preemptive",  required_argument, NULL, 'p' },
		{ "fingerprint", no_argument,       NULL, 'f' },
		{ "smartcard",   no_argument,       NULL, 'k' },
		{ "remote",      required_argument, NULL, 'r' },
		{ "login",       no_argument,       NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct settings settings = { NULL, NULL, NULL, 0 };
	const char *service = "gdm-password";
	struct person person = { NULL, 0, 0, 0, -1 };
	struct pam_conv conv = { converse, &person };
	int option, fingerprint = 0, smartcard = 0, failures = 0, stop_fd = -1, status = 0;
	pid_t beside = -1;
	const char *result;

	setlocale(LC_ALL, "");
	while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (option) {
		case 's': service = optarg; break;
		case 'u': settings.user = optarg; break;
		case 'c': settings.confdir = optarg; break;
		case 'p': person.preemptive_answer = strdup(optarg); break;
		case 'f': fingerprint = 1; break;
		case 'k': smartcard = 1; break;
		case 'r': settings.rhost = optarg; break;
		case 'l': settings.login = 1; break;
		default: settings.user = NULL; optind = argc + 1; break;
		}
	}
	if (settings.user == NULL || optind != argc) {
		fputs("usage: gnome_unlock --user USER [--service NAME] [--confdir DIR] [--preemptive TEXT]\n"
		      "                    [--fingerprint] [--smartcard] [--remote HOST] [--login]\n", stderr);
		return 2;
	}
	/* util.js _getForegroundService: an inserted smartcard preempts. */
	if (smartcard)
		service = "gdm-smartcard";
	/* util.js _maybeStartFingerprintVerification: beside the foreground one. */
	if (fingerprint && strcmp(service, "gdm-fingerprint") != 0)
		beside = start_beside("gdm-fingerprint", &settings, &person.beside_fd, &stop_fd);

	for (;;) {
		int rc;

		person.questions = 0;
		rc = one_conversation(service, &settings, &conv);
		if (rc == PAM_SUCCESS) {
			result = settings.login ? "signed in" : "unlocked";
			break;
		}
		if (person.verified_beside) {
			result = "unlocked by gdm-fingerprint";
			break;
		}
		if (service_unavailable(rc)) {
			/* util.js _onServiceUnavailable: its message, if any; no retry. */
			if (rc == PAM_MAXTRIES)
				show("ERROR", gdm_max_retries_message(service));
			result = "unavailable";
			break;
		}
		if (person.walked_away || person.questions == 0) {
			/* Nobody typed, or nothing was asked: a retry would go round forever. */
			result = "cancelled";
			break;
		}
		show("ERROR", gdm_problem_message(service, rc == PAM_USER_UNKNOWN ? PAM_AUTH_ERR : rc));
		/* util.js _onConversationStopped, _canRetry: unlocking always retries;
		 * the login screen gives up after allowed-failures (3). */
		failures++;
		if (settings.login && failures >= 3) {
			result = "reset";
			break;
		}
	}
	/* gdm-session.c: the other conversations are stopped. */
	if (beside > 0) {
		close(stop_fd);
		while (waitpid(beside, &status, 0) < 0 && errno == EINTR)
			;
	}
	show("RESULT", result);
	return strcmp(result, "unlocked") == 0 || strcmp(result, "signed in") == 0 ||
		strncmp(result, "unlocked by", 11) == 0 ? 0 : 1;
}
