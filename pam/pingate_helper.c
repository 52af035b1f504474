/*
 * pingate_helper.c — the module's requests to pingate-verify and what their
 * answers must look like before they count. Running the helper (pipes,
 * posix_spawn, deadlines, the run kept open from a status to its verify)
 * is pingate_run.c's; pingate_answer.c reads an answer's fields. See
 * pingate_protocol.h for the format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

#define NAME_MAX_LEN 256
#define SECRET_MAX_LEN 1024

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
		const char *user, const char *secret, bool want_notice, bool then_verify)
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
		(!then_verify || append_field(buf, &used, "then", "verify")) &&
		(secret == NULL || append_field(buf, &used, "secret", secret));

	return ok ? used : 0;
}

static void set_no_answer(struct pingate_answer *answer, const char *why)
{
	memset(answer, 0, sizeof(*answer));
	answer->reply = PINGATE_REPLY_NO_ANSWER;
	snprintf(answer->detail, sizeof(answer->detail), "%s", why);
}

/*
 * The helper's exit status and answer for one request: on the open run if
 * it is a verify and a status left one, else in a new run (which a status
 * with a run to keep asks to stay open, then=verify).
 */
static int ask(pam_handle_t *pamh, const struct pingate_options *opts, struct pingate_run *run,
		bool status_op, const char *request, size_t len, char *reply, size_t reply_size,
		char *why, size_t why_size)
{
	int status = PINGATE_RUN_ENDED;

	if (!status_op && run != NULL && run->pid != 0)
		status = pingate_run_follow_up(pamh, opts, run, request, len, reply, reply_size, why, why_size);
	if (status == PINGATE_RUN_ENDED)
		status = pingate_run_helper(pamh, opts, request, len, status_op ? run : NULL,
			reply, reply_size, why, why_size);
	return status;
}

void pingate_ask_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller, const char *op, const char *user,
		const char *secret, bool want_notice, struct pingate_run *run,
		struct pingate_answer *answer)
{
	bool status_op = strcmp(op, "status") == 0;

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
	    (len = build_request(pamh, opts, caller, request, op, user, secret, want_notice,
			status_op && run != NULL)) == 0) {
		set_no_answer(answer, "request not sent: a field is too long or holds control characters");
		goto out;
	}
	status = ask(pamh, opts, run, status_op, request, len, reply, sizeof(reply), why, sizeof(why));
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
