/*
 * gnome_unlock.c — what GNOME 43 does when a person unlocks the screen, for
 * tests on machines where GNOME Shell cannot run. Each step is the one of
 * the named source file (GNOME Shell 43, GDM 43):
 *
 *  - gdm 43's daemon/gdm-session-worker.c runs PAM as root for the user,
 *    with service gdm-password (pam_start; PAM_TTY /dev/tty<GDM_INITIAL_VT>;
 *    pam_authenticate without PAM_SILENT), then pam_acct_mgmt and
 *    pam_setcred(PAM_REINITIALIZE_CRED), as for a reauthentication
 *    (unlocking). Its conversation hands each PAM_PROMPT_ECHO_OFF/ON to the
 *    shell as a question, PAM_TEXT_INFO as an info message and
 *    PAM_ERROR_MSG as a problem. A failed pam_authenticate is reported as a
 *    problem with get_friendly_error_message()'s text, and a new
 *    conversation with a new PAM handle begins.
 *  - GNOME Shell 43's js/gdm/util.js (ShellUserVerifier) shows info and
 *    problem messages under the entry and, when unlocking
 *    (reauthenticationOnly, _canRetry), retries after every failure.
 *  - GNOME Shell 43's js/gdm/authPrompt.js (_onAskQuestion) shows a
 *    question as the entry's hint: "Password:" becomes the translated
 *    "Password", any other text loses /: *$/ and is trimmed. Text the
 *    person entered before a question arrived (_activateNext with no query
 *    pending: _preemptiveAnswer) answers the next question at once, without
 *    showing it; reset() forgets it.
 *
 * Transcript on stdout, one line per thing the person sees:
 *   HINT <the entry's hint> | INFO <text> | ERROR <text> | RESULT unlocked|cancelled
 * Each line of stdin is what the person types into the entry before
 * pressing Enter; at EOF they walk away (the conversation is cancelled).
 *
 * usage: gnome_unlock --user USER [--service gdm-password] [--confdir DIR]
 *                     [--preemptive TEXT]   (TEXT: typed and entered before
 *                                            the first question arrived)
 */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <security/pam_appl.h>

/* gdm 43, daemon/gdm-session-worker.c: get_generic_error_message(). */
static const char *gdm_failed_message(const char *service)
{
	if (strcmp(service, "gdm-password") == 0)
		return "Sorry, password authentication didn’t work. Please try again.";
	return "Sorry, that didn’t work. Please try again.";
}

struct person {
	char *preemptive_answer;  /* authPrompt.js _preemptiveAnswer */
	int questions;            /* asked in this conversation */
	int walked_away;          /* stdin ended at a question */
};

static void show(const char *tag, const char *text)
{
	printf("%s %s\n", tag, text);
	fflush(stdout);
}

/* authPrompt.js: question.replace(/: *$/, '').trim(), "Password:" translated. */
static void show_question_as_hint(const char *question)
{
	size_t start = 0, end = strlen(question);

	if (strcmp(question, "Password:") == 0 || strcmp(question, "Password: ") == 0) {
		show("HINT", "Password");
		return;
	}
	while (end > 0 && question[end - 1] == ' ')
		end--;
	if (end > 0 && question[end - 1] == ':')
		end--;
	while (end > start && question[end - 1] == ' ')
		end--;
	while (start < end && question[start] == ' ')
		start++;
	printf("HINT %.*s\n", (int)(end - start), question + start);
	fflush(stdout);
}

static char *typed_line(void)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t length = getline(&line, &size, stdin);

	if (length < 0) {
		free(line);
		return NULL;
	}
	if (length > 0 && line[length - 1] == '\n')
		line[length - 1] = '\0';
	return line;
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
	answer = typed_line();
	if (answer == NULL)
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

/* One conversation of the worker: a new PAM handle, as gdm starts one per attempt. */
static int one_conversation(const char *service, const char *user, const char *confdir,
		struct person *person)
{
	struct pam_conv conv = { converse, person };
	pam_handle_t *pamh = NULL;
	int rc = pam_start_confdir(service, user, &conv, confdir, &pamh);

	if (rc == PAM_SUCCESS)
		rc = pam_set_item(pamh, PAM_TTY, "/dev/tty1");
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(pamh, 0);
	if (rc == PAM_SUCCESS)
		rc = pam_acct_mgmt(pamh, 0);
	if (rc == PAM_SUCCESS)
		rc = pam_setcred(pamh, PAM_REINITIALIZE_CRED);
	if (pamh != NULL)
		pam_end(pamh, rc);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "service",    required_argument, NULL, 's' },
		{ "user",       required_argument, NULL, 'u' },
		{ "confdir",    required_argument, NULL, 'c' },
		{ "preemptive", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *service = "gdm-password", *user = NULL, *confdir = NULL;
	struct person person = { NULL, 0, 0 };
	int option;

	setlocale(LC_ALL, "");
	while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (option) {
		case 's': service = optarg; break;
		case 'u': user = optarg; break;
		case 'c': confdir = optarg; break;
		case 'p': person.preemptive_answer = strdup(optarg); break;
		default: user = NULL; optind = argc + 1; break;
		}
	}
	if (user == NULL || optind != argc) {
		fputs("usage: gnome_unlock --user USER [--service NAME] [--confdir DIR] [--preemptive TEXT]\n", stderr);
		return 2;
	}
	/* util.js: unlocking (reauthentication only) may always retry. */
	for (;;) {
		person.questions = 0;
		if (one_conversation(service, user, confdir, &person) == PAM_SUCCESS) {
			show("RESULT", "unlocked");
			return 0;
		}
		if (person.walked_away || person.questions == 0) {
			/* Nobody typed, or nothing was asked: a retry would go round forever. */
			show("RESULT", "cancelled");
			return 1;
		}
		show("ERROR", gdm_failed_message(service));
	}
}
