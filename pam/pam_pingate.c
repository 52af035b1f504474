/*
 * pam_pingate.c — PAM entry points of pam_pingate.so.
 *
 * Authentication only. The module decides whether to offer a PIN or pattern
 * at all (service allow-list, local requests, the helper's status), prompts
 * through the conversation, and leaves every judgement about the secret to
 * pingate-verify. Anything short of the helper's "ok" is never PAM_SUCCESS.
 * See docs/design.md, "One sign-in, end to end".
 */
#include <libintl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "pingate_module.h"

/*
 * Messages follow the calling application's locale (it has called
 * setlocale); syslog lines stay in English. pam_sm_authenticate binds the
 * domain, as libpam binds its own in pam_start.
 */
#define _(s) dgettext(PINGATE_TEXT_DOMAIN, s)
#define P_(singular, plural, n) dngettext(PINGATE_TEXT_DOMAIN, singular, plural, n)

static bool is_pattern(enum pingate_kind kind)
{
	return kind == PINGATE_KIND_PATTERN;
}

/* Info lines are courtesy: `quiet` and PAM_SILENT drop them. */
static void inform(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const char *format, ...)
{
	va_list args;

	if (opts->quiet || (flags & PAM_SILENT))
		return;
	va_start(args, format);
	pam_vinfo(pamh, format, args);
	va_end(args);
}

/*
 * What the module's next question carries on the lines above it, where info
 * lines do not reach the person: the notice of failed attempts (under quiet
 * or PAM_SILENT, see prepare_notice), and under PAM_SILENT what was said of
 * the PIN since (tell_of_pin). Emptied when a question says it.
 */
struct ahead {
	struct pingate_told told;   /* the notice told, for the verify; count 0: nothing */
	char text[512];             /* to say above the next question; empty: nothing waits */
	enum pingate_kind kind;     /* whose state the text tells: the question says it is not that */
};

/*
 * Whether what is said of the PIN waits for a question: under PAM_SILENT
 * only the questions reach the person (Debian's sudo and sudo-rs pass it and
 * show their prompts). Not under `quiet` (the admin asked for no messages),
 * not on again_or_password's lines (their one field shows a question as a
 * hint, and they ask on in their own flow), not under use_first_pass (never
 * a question).
 */
static bool says_in_questions(int flags, const struct pingate_options *opts)
{
	return (flags & PAM_SILENT) && !opts->quiet && !opts->again_or_password && !opts->use_first_pass;
}

/*
 * What is said of the PIN itself — a wrong one counted, the PIN locked or
 * disabled: the person must learn it to know why the PIN went and what is
 * asked next. An info line where those are shown; under PAM_SILENT a line
 * above the module's next question, the next PIN question if one follows,
 * or else a password question the module asks itself
 * (ask_password_saying_what_waits).
 */
static void tell_of_pin(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		struct ahead *ahead, const char *format, ...)
{
	size_t used = strlen(ahead->text);
	va_list args;

	va_start(args, format);
	if (!opts->quiet && !(flags & PAM_SILENT))
		pam_vinfo(pamh, format, args);
	else if (says_in_questions(flags, opts) && used + 1 < sizeof(ahead->text)) {
		if (used > 0)
			ahead->text[used++] = '\n';
		vsnprintf(ahead->text + used, sizeof(ahead->text) - used, format, args);
	}
	va_end(args);
}

/*
 * gettext lets a message hang on one number, and here that is the duration:
 * its words depend on it ("for 1 minute", "for 5 minutes"; 鎖定 5 分鐘), so
 * each unit is a whole sentence rather than a duration glued into one. The
 * failure count then needs no plural of its own: a lockout follows one
 * failure only when free_failures = 0, and that case has its own wording.
 */
static const char *pin_locked_text(bool minutes, unsigned failures, unsigned long n)
{
	if (minutes && failures == 1)
		return P_("PIN locked for %lu minute after a failed attempt — use your password",
			"PIN locked for %lu minutes after a failed attempt — use your password", n);
	if (minutes)
		/* TRANSLATORS: %2$u is the number of failed attempts, 2 or more. If your
		   language inflects the noun for it, word it as a count ("failed attempts: %2$u"). */
		return P_("PIN locked for %lu minute after %u failed attempts — use your password",
			"PIN locked for %lu minutes after %u failed attempts — use your password", n);
	if (failures == 1)
		return P_("PIN locked for %lu second after a failed attempt — use your password",
			"PIN locked for %lu seconds after a failed attempt — use your password", n);
	return P_("PIN locked for %lu second after %u failed attempts — use your password",
		"PIN locked for %lu seconds after %u failed attempts — use your password", n);
}

static const char *pattern_locked_text(bool minutes, unsigned failures, unsigned long n)
{
	if (minutes && failures == 1)
		return P_("Pattern locked for %lu minute after a failed attempt — use your password",
			"Pattern locked for %lu minutes after a failed attempt — use your password", n);
	if (minutes)
		/* TRANSLATORS: as for the PIN, %2$u failed attempts, 2 or more. */
		return P_("Pattern locked for %lu minute after %u failed attempts — use your password",
			"Pattern locked for %lu minutes after %u failed attempts — use your password", n);
	if (failures == 1)
		return P_("Pattern locked for %lu second after a failed attempt — use your password",
			"Pattern locked for %lu seconds after a failed attempt — use your password", n);
	return P_("Pattern locked for %lu second after %u failed attempts — use your password",
		"Pattern locked for %lu seconds after %u failed attempts — use your password", n);
}

static void tell_locked(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		struct ahead *ahead, enum pingate_kind kind, unsigned long seconds, unsigned failures)
{
	bool minutes = seconds >= 60;
	/* Rounded up: never promise less waiting than the truth. */
	unsigned long n = minutes ? (seconds + 59) / 60 : seconds;
	const char *text = is_pattern(kind) ? pattern_locked_text(minutes, failures, n) :
		pin_locked_text(minutes, failures, n);

	/* The one-failure texts have no %u; printf ignores the unused argument. */
	tell_of_pin(pamh, flags, opts, ahead, text, n, failures);
}

static void tell_disabled(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		struct ahead *ahead, enum pingate_kind kind, unsigned failures, const char *user)
{
	if (is_pattern(kind))
		tell_of_pin(pamh, flags, opts, ahead, P_("Pattern disabled after %u failed attempt — use your password; "
			"an administrator can run: pingate unlock %s",
			"Pattern disabled after %u failed attempts — use your password; "
			"an administrator can run: pingate unlock %s", failures), failures, user);
	else
		tell_of_pin(pamh, flags, opts, ahead, P_("PIN disabled after %u failed attempt — use your password; "
			"an administrator can run: pingate unlock %s",
			"PIN disabled after %u failed attempts — use your password; "
			"an administrator can run: pingate unlock %s", failures), failures, user);
}

/* Whether info lines reach the person: not under quiet or PAM_SILENT (Debian's sudo). */
static bool shows_messages(int flags, const struct pingate_options *opts)
{
	return !opts->quiet && !(flags & PAM_SILENT);
}

/*
 * The failed attempts the owner has not been told of (the status's
 * unseen=N since=T), told before the first question, as pam_faillock's
 * "There were N failed login attempts": "2 failed PIN attempts since your
 * last PIN sign-in, the first at 14:02". The time has its date unless it
 * is today. The words are the CLI's too: one translation.
 */
static void format_notice(enum pingate_kind kind, unsigned failures, unsigned long long since,
		char *text, size_t size)
{
	time_t first = (time_t)since, now = time(NULL);
	struct tm first_tm, now_tm;
	char when[64] = "?";

	if (localtime_r(&first, &first_tm) != NULL && localtime_r(&now, &now_tm) != NULL) {
		bool today = first_tm.tm_year == now_tm.tm_year && first_tm.tm_yday == now_tm.tm_yday;

		strftime(when, sizeof(when), today ? "%H:%M" : "%Y-%m-%d %H:%M", &first_tm);
	}
	if (is_pattern(kind))
		snprintf(text, size, P_("%d failed pattern attempt since your last pattern sign-in, at %s",
			"%d failed pattern attempts since your last pattern sign-in, the first at %s", failures),
			(int)failures, when);
	else
		snprintf(text, size, P_("%d failed PIN attempt since your last PIN sign-in, at %s",
			"%d failed PIN attempts since your last PIN sign-in, the first at %s", failures),
			(int)failures, when);
}

static bool service_listed(pam_handle_t *pamh, const char *list);

/*
 * Before the PIN is typed, never after: a job the user left running may
 * have guessed, and the owner must know before spending the PIN (a success
 * spends the notice only where it was shown, and a status never does). As
 * an info line where those are shown; in the question itself where they
 * are not (sudo passes PAM_SILENT but shows its prompt). Never where no
 * info line is shown (PINGATE_NO_INFO_SERVICES: i3lock, swaylock, hyprlock
 * and the like, however their stack reaches this line) or under nonotice:
 * the notice waits, unspent, for a sign-in that shows it.
 */
static void prepare_notice(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const struct pingate_answer *status, struct ahead *ahead)
{
	if (status->unseen == 0 || opts->nonotice || service_listed(pamh, PINGATE_NO_INFO_SERVICES))
		return;
	format_notice(status->kind, status->unseen, status->since, ahead->text, sizeof(ahead->text));
	if (shows_messages(flags, opts)) {
		inform(pamh, flags, opts, "%s", ahead->text);
		ahead->text[0] = '\0';
	}
	ahead->told.count = status->unseen;
	ahead->told.since = status->since;
}

/* What the verify may say was told: nothing if the question that was to carry it never came. */
static const struct pingate_told *told(const struct ahead *ahead)
{
	return ahead->text[0] == '\0' ? &ahead->told : NULL;
}

static void tell_password_first(pam_handle_t *pamh, int flags, const struct pingate_options *opts)
{
	inform(pamh, flags, opts, "%s", _("The first sign-in since the machine started takes your password; "
		"the PIN unlocks after that"));
}

/* The store cannot be used (read-only, no key, no helper to run): said once, before the password. */
static void tell_unavailable(pam_handle_t *pamh, int flags, const struct pingate_options *opts)
{
	inform(pamh, flags, opts, "%s", _("PIN sign-in cannot be used here now — use your password"));
}

static void tell_not_local(pam_handle_t *pamh, int flags, const struct pingate_options *opts)
{
	inform(pamh, flags, opts, "%s", _("PIN sign-in is offered only at the machine — use your password"));
}

static void tell_wrong(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		struct ahead *ahead, enum pingate_kind kind, unsigned left)
{
	if (is_pattern(kind))
		tell_of_pin(pamh, flags, opts, ahead, P_("Wrong pattern — %u attempt left",
			"Wrong pattern — %u attempts left", left), left);
	else
		tell_of_pin(pamh, flags, opts, ahead, P_("Wrong PIN — %u attempt left",
			"Wrong PIN — %u attempts left", left), left);
}

static void tell_malformed(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		enum pingate_kind kind)
{
	if (is_pattern(kind))
		inform(pamh, flags, opts, "%s", _("That is not a pattern — enter the cells in order, e.g. 1-5-9-6"));
	else
		inform(pamh, flags, opts, "%s", _("That is not a PIN — enter the digits of your PIN"));
}

static void show_legend(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		unsigned grid)
{
	char legend[512];
	size_t used;
	unsigned row, column;

	used = (size_t)snprintf(legend, sizeof(legend), "%s", _(pingate_pattern_legend));
	for (row = 0; row < grid && used < sizeof(legend); row++) {
		used += (size_t)snprintf(legend + used, sizeof(legend) - used, "\n");
		for (column = 0; column < grid && used < sizeof(legend); column++)
			used += (size_t)snprintf(legend + used, sizeof(legend) - used, "%3u",
				row * grid + column + 1);
	}
	inform(pamh, flags, opts, "%s", legend);
}

/*
 * announce: before the first question only (a second one follows "Wrong
 * PIN — N attempts left", which says enough), and like every info line not
 * under quiet or PAM_SILENT.
 */
static void announce(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		enum pingate_kind kind)
{
	if (opts->announce)
		inform(pamh, flags, opts, "%s", is_pattern(kind) ? _(pingate_announce_pattern) : _(pingate_announce_pin));
}

static void wipe_and_free(char *secret)
{
	if (secret != NULL) {
		explicit_bzero(secret, strlen(secret));
		free(secret);
	}
}

/*
 * On PAM_SUCCESS *secret is a heap copy the caller wipes and frees. What
 * waits to be said (ahead) goes on the lines above the question, once.
 */
static int prompt_secret(pam_handle_t *pamh, const char *prompt, struct ahead *ahead, char **secret)
{
	char *response = NULL;
	bool before = ahead != NULL && ahead->text[0] != '\0';
	int rc = pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, &response, before ? "%s\n%s" : "%s%s",
		before ? ahead->text : "", prompt);

	if (before)
		ahead->text[0] = '\0';

	if (rc == PAM_SUCCESS && response == NULL)
		rc = PAM_CONV_ERR;
	if (rc == PAM_SUCCESS)
		*secret = response;
	else
		wipe_and_free(response);
	return rc;
}

/* PAM_AUTHTOK if present, copied; PAM_AUTHINFO_UNAVAIL if not. */
static int copy_authtok(pam_handle_t *pamh, char **secret)
{
	const void *item = NULL;

	if (pam_get_item(pamh, PAM_AUTHTOK, &item) != PAM_SUCCESS || item == NULL)
		return PAM_AUTHINFO_UNAVAIL;
	*secret = strdup(item);
	return *secret != NULL ? PAM_SUCCESS : PAM_BUF_ERR;
}

/* The question unless `prompt=` gives one (see pingate_protocol.h). */
static const char *default_prompt(const struct pingate_options *opts, enum pingate_kind kind)
{
	if (opts->again_or_password)
		return is_pattern(kind) ? _(pingate_field_pattern_or_password) : _(pingate_field_pin_or_password);
	return is_pattern(kind) ? _(pingate_prompt_pattern) : _(pingate_prompt_pin);
}

static int get_secret(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const struct pingate_answer *status, unsigned attempt, struct ahead *ahead, char **secret)
{
	const char *prompt = opts->prompt;

	if (attempt == 0 && (opts->try_first_pass || opts->use_first_pass)) {
		int rc = copy_authtok(pamh, secret);

		if (rc != PAM_AUTHINFO_UNAVAIL || opts->use_first_pass)
			return rc;
	}
	if (attempt == 0)
		announce(pamh, flags, opts, status->kind);
	if (is_pattern(status->kind))
		show_legend(pamh, flags, opts, status->grid);
	if (prompt == NULL)
		prompt = default_prompt(opts, status->kind);
	return prompt_secret(pamh, prompt, ahead, secret);
}

/*
 * A PIN or pattern must not travel on as if it were the password:
 * pam_gnome_keyring, pam_kwallet, pam_mount, pam_ecryptfs and pam_fscrypt
 * take PAM_AUTHTOK for the account password and would, say, create a login
 * keyring guarded by four digits. So each answer tried as a PIN is checked
 * against the item (forward_pass put it there, or try_first_pass took it
 * from an earlier module), and after a success the item is dropped if it
 * held any of them — the one that unlocked, or a mistyped one before it.
 * Without a success (a password being forwarded, a wrong all-digit answer)
 * the item stays for the password module.
 */
static bool is_authtok(pam_handle_t *pamh, const char *secret)
{
	const void *item = NULL;

	return pam_get_item(pamh, PAM_AUTHTOK, &item) == PAM_SUCCESS && item != NULL &&
		strcmp(item, secret) == 0;
}

static int forget_spent_authtok(pam_handle_t *pamh, bool spent)
{
	return spent ? pam_set_item(pamh, PAM_AUTHTOK, NULL) : PAM_SUCCESS;
}

/* What a verify answer means for the result; *again if another try makes sense. */
static int judge_verify(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const char *user, enum pingate_kind kind, const struct pingate_answer *answer,
		struct ahead *ahead, bool *again)
{
	char name[PINGATE_LOG_TEXT_MAX];

	*again = false;
	switch (answer->reply) {
	case PINGATE_REPLY_OK:
		return PAM_SUCCESS;  /* the notice, if any, was told before the question */
	case PINGATE_REPLY_WRONG:
		if (answer->disabled)
			tell_disabled(pamh, flags, opts, ahead, kind, answer->failures, user);
		else if (answer->seconds > 0)
			tell_locked(pamh, flags, opts, ahead, kind, answer->seconds, answer->failures);
		else {
			tell_wrong(pamh, flags, opts, ahead, kind, answer->left);
			*again = true;
		}
		return PAM_AUTH_ERR;
	case PINGATE_REPLY_MALFORMED:
		tell_malformed(pamh, flags, opts, kind);
		*again = true;
		return PAM_AUTH_ERR;
	case PINGATE_REPLY_LOCKED:
		tell_locked(pamh, flags, opts, ahead, kind, answer->seconds, answer->failures);
		return PAM_AUTH_ERR;
	case PINGATE_REPLY_DISABLED:
		tell_disabled(pamh, flags, opts, ahead, kind, answer->failures, user);
		return PAM_AUTH_ERR;
	case PINGATE_REPLY_NOT_ENROLLED:
		return PAM_AUTH_ERR;  /* removed since the status request */
	case PINGATE_REPLY_NOT_LOCAL:
		tell_not_local(pamh, flags, opts);  /* the session changed since the status request */
		return PAM_IGNORE;
	case PINGATE_REPLY_NOT_OFFERED:
	case PINGATE_REPLY_PASSWORD_FIRST:
		return PAM_IGNORE;  /* pingate.conf or the sessions changed since the status request */
	case PINGATE_REPLY_ENROLLED:
		pam_syslog(pamh, LOG_ERR, "verify for %s: unexpected answer: %s",
			pingate_log_text(user, name), answer->detail);
		return PAM_AUTHINFO_UNAVAIL;
	default:
		return PAM_AUTHINFO_UNAVAIL;  /* logged by pingate_ask_helper */
	}
}

static bool could_be_credential(const char *text, enum pingate_kind kind);

/*
 * Digits that cannot be this user's PIN: the status said how many it has
 * (length=N; not said for a PIN enrolled before lengths were kept). Only
 * the enrolled PIN's own length counts, never pingate.conf's rules, which
 * may have changed since (a PIN of 4 digits under pin_min_length = 6 is
 * still the PIN).
 */
static bool cannot_be_the_pin(const char *text, const struct pingate_answer *status)
{
	return status->kind == PINGATE_KIND_PIN && status->length > 0 && strlen(text) != status->length;
}

/*
 * again_or_password, for lock screens that keep one field for every
 * question (KDE's says "Password" whatever is asked): every question is
 * "PIN or password", and an answer that cannot be a credential of the
 * user's kind is the password — stored as PAM_AUTHTOK for the next module
 * (*password set), not sent to the helper: text that is not digits (or a
 * pattern's cells), and digits of another length than the user's PIN (an
 * all-digit password, which auth_err=die would otherwise keep from ever
 * reaching pam_unix). An answer that may be the PIN is verified first
 * (is_the_password_after_all).
 */
static int ask_with_password_aside(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const struct pingate_answer *status, unsigned attempt, struct ahead *ahead, char **secret, bool *password)
{
	int rc = get_secret(pamh, flags, opts, status, attempt, ahead, secret);

	*password = rc == PAM_SUCCESS &&
		(!could_be_credential(*secret, status->kind) || cannot_be_the_pin(*secret, status));
	if (*password)
		rc = pam_set_item(pamh, PAM_AUTHTOK, *secret);
	return rc;
}

/*
 * What the helper says is the password after all, in a field that takes
 * both (issue 32: an all-digit password as long as the PIN, or a pattern
 * user's all-digit password, could otherwise never unlock): the wrong
 * answer of last time typed again, which is not counted twice, so handing
 * it on gives a guesser nothing the PIN's count did not already charge
 * (and pam_unix delays and pam_faillock counts its own failures); and an
 * answer that can be no credential of the user's (malformed never). A
 * first wrong PIN is still counted here and ends the try.
 *
 * And any malformed digits when the status gave no length (issue 40, item
 * 5: a PIN enrolled before lengths were kept), where cannot_be_the_pin
 * could not hand on an all-digit password of another length: the helper
 * refused them under pingate.conf's PIN lengths, so no PIN of those rules
 * is lost, and a PIN of older rules could not unlock anyway. Kept back,
 * such a password (4 to 12 digits) could never reach pam_unix.
 */
static bool is_the_password_after_all(const struct pingate_answer *answer, const struct pingate_answer *status)
{
	return (answer->reply == PINGATE_REPLY_WRONG && answer->repeated) ||
		(answer->reply == PINGATE_REPLY_MALFORMED &&
		 (answer->never_a_credential || (status->kind == PINGATE_KIND_PIN && status->length == 0)));
}

static int authenticate_with_prompts(pam_handle_t *pamh, int flags,
		const struct pingate_options *opts, const struct pingate_caller *caller, const char *user,
		const struct pingate_answer *status, struct ahead *ahead, struct pingate_run *run)
{
	unsigned attempt, attempts = opts->use_first_pass ? 1 : opts->retries;
	struct pingate_answer answer;
	char *secret = NULL;
	bool again = true, spent = false, password = false;
	int rc = PAM_AUTH_ERR;

	for (attempt = 0; attempt < attempts && again; attempt++) {
		if (opts->again_or_password)
			rc = ask_with_password_aside(pamh, flags, opts, status, attempt, ahead, &secret, &password);
		else
			rc = get_secret(pamh, flags, opts, status, attempt, ahead, &secret);
		if (rc != PAM_SUCCESS || password) {
			wipe_and_free(secret);
			/* The password goes on, uncounted, to the module that checks it. */
			return rc == PAM_SUCCESS ? PAM_IGNORE : rc;
		}
		pingate_ask_helper(pamh, opts, caller, "verify", user, secret, told(ahead), run, &answer);
		if (opts->again_or_password && is_the_password_after_all(&answer, status)) {
			rc = pam_set_item(pamh, PAM_AUTHTOK, secret);
			wipe_and_free(secret);
			return rc == PAM_SUCCESS ? PAM_IGNORE : rc;
		}
		spent = spent || is_authtok(pamh, secret);
		rc = judge_verify(pamh, flags, opts, user, status->kind, &answer, ahead, &again);
		if (rc == PAM_SUCCESS)
			rc = forget_spent_authtok(pamh, spent);
		wipe_and_free(secret);
		secret = NULL;
	}
	return rc;
}

/*
 * forward_pass: the answer may be the password. Text that cannot be a
 * credential of the user's kind never reaches the helper.
 */
static bool could_be_credential(const char *text, enum pingate_kind kind)
{
	const char *allowed = is_pattern(kind) ? "0123456789-, :" : "0123456789";

	return strpbrk(text, "0123456789") != NULL && strspn(text, allowed) == strlen(text);
}

static int authenticate_forwarded(pam_handle_t *pamh, int flags,
		const struct pingate_options *opts, const struct pingate_caller *caller, const char *user,
		const struct pingate_answer *status, struct ahead *ahead, struct pingate_run *run)
{
	struct pingate_answer answer;
	char *secret = NULL;
	bool again;
	int rc;

	rc = copy_authtok(pamh, &secret);
	if (rc == PAM_AUTHINFO_UNAVAIL && !opts->use_first_pass) {
		announce(pamh, flags, opts, status->kind);
		rc = prompt_secret(pamh, opts->prompt != NULL ? opts->prompt : _(pingate_prompt_pin_or_password), ahead, &secret);
		if (rc == PAM_SUCCESS)
			rc = pam_set_item(pamh, PAM_AUTHTOK, secret);
	}
	if (rc != PAM_SUCCESS)
		goto out;
	/* Nothing about the typed text goes to the log, not even under debug. */
	if (!could_be_credential(secret, status->kind)) {
		rc = PAM_IGNORE;
		goto out;
	}
	pingate_ask_helper(pamh, opts, caller, "verify", user, secret, told(ahead), run, &answer);
	if (answer.reply == PINGATE_REPLY_OK || (answer.reply == PINGATE_REPLY_WRONG && !answer.repeated))
		rc = judge_verify(pamh, flags, opts, user, status->kind, &answer, ahead, &again);
	else
		rc = PAM_IGNORE;  /* not counted (likely a password): the next module decides */
	if (rc == PAM_SUCCESS)
		rc = forget_spent_authtok(pamh, is_authtok(pamh, secret));
out:
	wipe_and_free(secret);
	return rc;
}

/*
 * PAM_SUCCESS if a PIN may be offered to this caller at all: only to the
 * user it belongs to (see pingate_caller.c). Whether the caller is at the
 * machine, and whether this service offers a PIN, the helper answers
 * (not-local, not-offered). A caller who is not the owner learns nothing,
 * not even that a PIN exists.
 */
static int check_gates(pam_handle_t *pamh, const struct pingate_options *opts,
		const char *user, struct pingate_caller *caller)
{
	if (!pingate_find_caller(pamh, opts, caller) ||
	    !pingate_caller_owns(pamh, opts, caller, user))
		return PAM_IGNORE;
	return PAM_SUCCESS;
}

/* PAM_SUCCESS if the user has a usable credential to prompt for. */
static int judge_status(pam_handle_t *pamh, int flags, const struct pingate_options *opts,
		const char *user, const struct pingate_answer *status, struct ahead *ahead)
{
	char name[PINGATE_LOG_TEXT_MAX];

	switch (status->reply) {
	case PINGATE_REPLY_ENROLLED:
		return PAM_SUCCESS;
	case PINGATE_REPLY_NOT_ENROLLED:
		return PAM_IGNORE;  /* silently: most users never enrol */
	case PINGATE_REPLY_LOCKED:
		tell_locked(pamh, flags, opts, ahead, status->kind, status->seconds, status->failures);
		return PAM_IGNORE;
	case PINGATE_REPLY_DISABLED:
		tell_disabled(pamh, flags, opts, ahead, status->kind, status->failures, user);
		return PAM_IGNORE;
	case PINGATE_REPLY_NOT_LOCAL:
		tell_not_local(pamh, flags, opts);
		return PAM_IGNORE;
	case PINGATE_REPLY_NOT_OFFERED:
		return PAM_IGNORE;  /* silently: the admin chose where PINs are offered */
	case PINGATE_REPLY_PASSWORD_FIRST:
		tell_password_first(pamh, flags, opts);
		return PAM_IGNORE;
	case PINGATE_REPLY_ERROR:
	case PINGATE_REPLY_NO_ANSWER:
		/* The cause is logged (pingate_ask_helper); `pingate doctor` names the fix. */
		tell_unavailable(pamh, flags, opts);
		return PAM_AUTHINFO_UNAVAIL;
	case PINGATE_REPLY_REFUSED:
		return PAM_AUTHINFO_UNAVAIL;  /* logged by pingate_ask_helper */
	default:
		pam_syslog(pamh, LOG_ERR, "status for %s: unexpected answer: %s",
			pingate_log_text(user, name), status->detail);
		return PAM_AUTHINFO_UNAVAIL;
	}
}

/* Whether PAM_SERVICE is a word of `list` (one of pingate_protocol.h's lists). */
static bool service_listed(pam_handle_t *pamh, const char *list)
{
	const void *item = NULL;
	const char *service;
	size_t length;

	if (pam_get_item(pamh, PAM_SERVICE, &item) != PAM_SUCCESS || item == NULL)
		return false;
	service = item;
	length = strlen(service);
	while (*list != '\0') {
		size_t word = strcspn(list, " ");

		if (word == length && strncmp(list, service, length) == 0)
			return true;
		list += word + (list[word] == ' ');
	}
	return false;
}

/*
 * Whether PAM_SERVICE is a conversation nobody sees (PINGATE_UNSEEN_SERVICES):
 * a PIN question there would wait unseen, or take the place of a smart
 * card's own PIN. Refused here, before any helper call.
 */
static bool unseen_service(pam_handle_t *pamh)
{
	return service_listed(pamh, PINGATE_UNSEEN_SERVICES);
}

/*
 * An application may ask the module to stay out of one authentication:
 * PINGATE_PASSWORD_ONLY=1 in the PAM environment (pam_putenv), as the lock
 * screen's password mode does. It can only take a PIN away, so a value a
 * user put there (pam_env) gains them nothing.
 */
static bool password_only(pam_handle_t *pamh)
{
	const char *value = pam_getenv(pamh, PINGATE_PASSWORD_ONLY_ENV);

	return value != NULL && strcmp(value, "1") == 0;
}

/*
 * Under PAM_SILENT, what waits to be said of the PIN when the module has no
 * PIN question left (a wrong PIN, the PIN locked or disabled) goes above a
 * password question the module asks itself: the one question the person
 * meets there, so the reason comes with it. Its answer is the password's,
 * never a PIN attempt: not sent to the helper, not counted, left as
 * PAM_AUTHTOK for the password module (pam_unix takes it without asking),
 * and the module steps aside (PAM_IGNORE), as after forward_pass's
 * question. Nothing is asked where a password is already there (an earlier
 * module's, or forward_pass's answer). An empty answer is handed on to
 * nobody: the password module then asks its own question, as before. rc:
 * the module's result if it asks nothing.
 */
static int ask_password_saying_what_waits(pam_handle_t *pamh, const char *user, struct ahead *ahead, int rc)
{
	char question[PINGATE_LOG_TEXT_MAX + 64], *password = NULL;
	const void *item = NULL;
	int asked;

	if (ahead->text[0] == '\0' || (pam_get_item(pamh, PAM_AUTHTOK, &item) == PAM_SUCCESS && item != NULL))
		return rc;
	/* Said "not your PIN": the line above it names the PIN ("Wrong PIN — 4
	   attempts left"), and a person reading it types the PIN again. */
	if (is_pattern(ahead->kind))
		/* TRANSLATORS: asked by PinGate itself under sudo, after a line saying why the
		   pattern is not asked (wrong, locked, disabled); %s is the user's login name. */
		snprintf(question, sizeof(question), _("Password (not your pattern) for %s: "), user);
	else
		/* TRANSLATORS: asked by PinGate itself under sudo, after a line saying why the
		   PIN is not asked (wrong, locked, disabled); %s is the user's login name. The
		   words in brackets keep a person who just read "Wrong PIN" from typing it here. */
		snprintf(question, sizeof(question), _("Password (not your PIN) for %s: "), user);
	asked = prompt_secret(pamh, question, ahead, &password);
	if (asked != PAM_SUCCESS)
		return asked;
	if (password[0] != '\0')
		rc = pam_set_item(pamh, PAM_AUTHTOK, password) == PAM_SUCCESS ? PAM_IGNORE : PAM_BUF_ERR;
	wipe_and_free(password);
	return rc;
}

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pingate_options opts;
	struct pingate_caller caller;
	struct pingate_answer status;
	struct ahead ahead = { { 0, 0 }, "", PINGATE_KIND_NONE };
	/* One helper run for the status and the verify after it (pingate_run.c). */
	struct pingate_run run = PINGATE_RUN_NONE;
	char name[PINGATE_LOG_TEXT_MAX];
	const char *user = NULL;
	int rc;

	bindtextdomain(PINGATE_TEXT_DOMAIN, PINGATE_LOCALEDIR);
	rc = pingate_options_load(pamh, &opts, argc, argv);
	if (rc != PAM_SUCCESS)
		goto out;
	if (password_only(pamh)) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "the application asked for the password only");
		rc = PAM_IGNORE;
		goto out;
	}
	if (unseen_service(pamh)) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "no PIN in a conversation nobody sees");
		rc = PAM_IGNORE;
		goto out;
	}
	rc = pam_get_user(pamh, &user, NULL);
	if (rc == PAM_SUCCESS && (user == NULL || user[0] == '\0'))
		rc = PAM_USER_UNKNOWN;
	if (rc != PAM_SUCCESS)
		goto out;
	rc = check_gates(pamh, &opts, user, &caller);
	if (rc != PAM_SUCCESS)
		goto out;
	pingate_ask_helper(pamh, &opts, &caller, "status", user, NULL, NULL, &run, &status);
	ahead.kind = status.kind;
	rc = judge_status(pamh, flags, &opts, user, &status, &ahead);
	if (rc != PAM_SUCCESS)
		goto out;
	prepare_notice(pamh, flags, &opts, &status, &ahead);
	if (opts.forward_pass)
		rc = authenticate_forwarded(pamh, flags, &opts, &caller, user, &status, &ahead, &run);
	else
		rc = authenticate_with_prompts(pamh, flags, &opts, &caller, user, &status, &ahead, &run);
out:
	pingate_run_end(&opts, &run);
	/* Only once the helper has ended: it never waits on a person's typing. */
	if (rc != PAM_SUCCESS && says_in_questions(flags, &opts))
		rc = ask_password_saying_what_waits(pamh, user, &ahead, rc);
	if (opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "authenticate %s: %s",
			pingate_log_text(user, name), pam_strerror(pamh, rc));
	return rc;
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_SUCCESS;  /* no credentials to establish, like pam_unix */
}

int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;  /* the account is the password module's business */
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}

/*
 * PINs change through `pingate change`, which proves the current one. If
 * this module lands in a password stack by mistake, PAM_IGNORE keeps
 * passwd working; PAM_SERVICE_ERR would make every password change fail.
 */
int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}
