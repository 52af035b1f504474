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

/*
 * The length of the UTF-8 sequence at text and its scalar, or 0 if it is
 * none (a stray or missing continuation byte, an overlong form, a
 * surrogate, beyond U+10FFFF): the helper reads every field but a secret
 * as UTF-8, and refuses the request otherwise.
 */
static size_t utf8_sequence(const unsigned char *text, unsigned int *scalar)
{
	static const unsigned int least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t length, i;

	if (text[0] < 0x80) {
		*scalar = text[0];
		return 1;
	}
	length = text[0] >= 0xf0 ? 4 : text[0] >= 0xe0 ? 3 : text[0] >= 0xc0 ? 2 : 0;
	if (length == 0 || text[0] >= 0xf8)
		return 0;
	*scalar = text[0] & (0x7fu >> length);
	for (i = 1; i < length; i++) {
		if ((text[i] & 0xc0) != 0x80)
			return 0;  /* also the string's end */
		*scalar = (*scalar << 6) | (text[i] & 0x3fu);
	}
	if (*scalar < least[length] || *scalar > 0x10ffff || (*scalar >= 0xd800 && *scalar <= 0xdfff))
		return 0;
	return length;
}

bool pingate_is_clean_value(const char *text, size_t max)
{
	const unsigned char *at = (const unsigned char *)text;
	unsigned int scalar;
	size_t length;

	for (; *at != '\0'; at += length) {
		if (*at < 0x20 || *at == 0x7f || (length = utf8_sequence(at, &scalar)) == 0 ||
		    (size_t)(at - (const unsigned char *)text) + length > max)
			return false;
	}
	return true;
}

const char *pingate_log_text(const char *text, char buffer[PINGATE_LOG_TEXT_MAX])
{
	const unsigned char *at = (const unsigned char *)text;
	unsigned int scalar;
	size_t used = 0, length, i;

	if (text == NULL)
		return "(none)";
	/* Each byte of an untrusted control, a stray byte or a backslash as \xNN. */
	for (; *at != '\0'; at += length) {
		bool escaped;

		length = utf8_sequence(at, &scalar);
		escaped = length == 0 || pingate_is_untrusted_control(scalar) || scalar == '\\';
		if (length == 0)
			length = 1;
		if (used + (escaped ? 4 * length : length) >= PINGATE_LOG_TEXT_MAX)
			break;
		for (i = 0; i < length; i++) {
			if (escaped)
				used += (size_t)snprintf(buffer + used, PINGATE_LOG_TEXT_MAX - used, "\\x%02x", at[i]);
			else
				buffer[used++] = (char)at[i];
		}
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

static bool append_unsigned(char *buf, size_t *used, const char *key, unsigned long long value)
{
	char text[24];

	snprintf(text, sizeof(text), "%llu", value);
	return append_field(buf, used, key, text);
}

static size_t build_request(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller, char *buf, const char *op,
		const char *user, const char *secret, const struct pingate_told *told, bool then_verify)
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
		(told == NULL || told->count == 0 || append_number(buf, &used, "notice", (long)told->count)) &&
		(told == NULL || told->count == 0 || append_unsigned(buf, &used, "notice_since", told->since)) &&
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

	if (!status_op && run != NULL && pingate_run_is_open(run))
		status = pingate_run_follow_up(pamh, opts, run, request, len, reply, reply_size, why, why_size);
	if (status == PINGATE_RUN_ENDED)
		status = pingate_run_helper(pamh, opts, request, len, status_op ? run : NULL,
			reply, reply_size, why, why_size);
	return status;
}

void pingate_ask_helper(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller, const char *op, const char *user,
		const char *secret, const struct pingate_told *told, struct pingate_run *run,
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
	    (len = build_request(pamh, opts, caller, request, op, user, secret, told,
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
