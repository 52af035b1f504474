/*
 * pingate_options.c — the module's options, from its PAM line.
 *
 * One parser, as in pam_faillock: set_option() takes a name and a value.
 * pingate.conf is not read here: the helper reads it, and applies its
 * `services` list (answering not-offered), so the file has one reader.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

static const struct {
	const char *name;
	size_t offset;
} flag_options[] = {
	{ "allow_remote",   offsetof(struct pingate_options, allow_remote) },
	{ "try_first_pass", offsetof(struct pingate_options, try_first_pass) },
	{ "use_first_pass", offsetof(struct pingate_options, use_first_pass) },
	{ "quiet",          offsetof(struct pingate_options, quiet) },
	{ "debug",          offsetof(struct pingate_options, debug) },
	{ "forward_pass",   offsetof(struct pingate_options, forward_pass) },
	{ "nonotice",       offsetof(struct pingate_options, nonotice) },
	{ "again_or_password", offsetof(struct pingate_options, again_or_password) },
	{ "announce",       offsetof(struct pingate_options, announce) },
};

static void set_defaults(struct pingate_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->retries = 1;
	opts->timeout = PINGATE_TIMEOUT_DEFAULT;
	opts->helper = PINGATE_HELPER_PATH;
}

static int set_number(unsigned *field, const char *value, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long n;

	if (value == NULL || !isdigit((unsigned char)value[0]))
		return PAM_SERVICE_ERR;
	errno = 0;
	n = strtoul(value, &end, 10);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return PAM_SERVICE_ERR;
	*field = (unsigned)n;
	return PAM_SUCCESS;
}

static int set_path(const char **field, const char *value)
{
	if (value == NULL || value[0] != '/')
		return PAM_SERVICE_ERR;
	*field = value;
	return PAM_SUCCESS;
}

static int set_prompt(struct pingate_options *opts, const char *value)
{
	if (value == NULL || value[0] == '\0')
		return PAM_SERVICE_ERR;
	opts->prompt = value;
	return PAM_SUCCESS;
}

/* value is NULL for a bare word. It must outlive opts (argv does). */
static int set_option(pam_handle_t *pamh, struct pingate_options *opts,
		const char *name, const char *value)
{
	size_t i;
	int rc = PAM_SERVICE_ERR;

	if (strcmp(name, "retries") == 0)
		rc = set_number(&opts->retries, value, 1, PINGATE_RETRIES_MAX);
	else if (strcmp(name, "timeout") == 0)
		rc = set_number(&opts->timeout, value, PINGATE_TIMEOUT_MIN, PINGATE_TIMEOUT_MAX);
	else if (strcmp(name, "prompt") == 0)
		rc = set_prompt(opts, value);
	else if (strcmp(name, "helper") == 0)
		rc = set_path(&opts->helper, value);
	else if (strcmp(name, "conf") == 0)
		rc = set_path(&opts->conf, value);
	else {
		for (i = 0; i < sizeof(flag_options) / sizeof(flag_options[0]); i++) {
			if (strcmp(name, flag_options[i].name) == 0) {
				if (value != NULL)
					break;
				*(bool *)((char *)opts + flag_options[i].offset) = true;
				return PAM_SUCCESS;
			}
		}
		if (i == sizeof(flag_options) / sizeof(flag_options[0])) {
			pam_syslog(pamh, LOG_ERR, "unknown option: %s", name);
			return PAM_SERVICE_ERR;
		}
	}
	if (rc != PAM_SUCCESS)
		pam_syslog(pamh, LOG_ERR, "bad value for option %s%s%s", name,
			value != NULL ? "=" : "", value != NULL ? value : "");
	return rc;
}

static int split_and_set(pam_handle_t *pamh, struct pingate_options *opts, const char *arg)
{
	char name[32];
	const char *eq = strchr(arg, '=');
	size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);

	if (len == 0 || len >= sizeof(name)) {
		pam_syslog(pamh, LOG_ERR, "unknown option: %s", arg);
		return PAM_SERVICE_ERR;
	}
	memcpy(name, arg, len);
	name[len] = '\0';
	return set_option(pamh, opts, name, eq != NULL ? eq + 1 : NULL);
}

int pingate_options_load(pam_handle_t *pamh, struct pingate_options *opts,
		int argc, const char **argv)
{
	int i, rc = PAM_SUCCESS;

	set_defaults(opts);
	for (i = 0; i < argc && rc == PAM_SUCCESS; i++)
		rc = split_and_set(pamh, opts, argv[i]);
	/* Two ways to ask that exclude each other: a line that names both is a mistake to fix. */
	if (rc == PAM_SUCCESS && opts->forward_pass && opts->again_or_password) {
		pam_syslog(pamh, LOG_ERR, "forward_pass and again_or_password exclude each other: keep one");
		rc = PAM_SERVICE_ERR;
	}
	if (rc == PAM_SUCCESS && opts->debug)
		pam_syslog(pamh, LOG_DEBUG, "options: retries=%u timeout=%u%s%s%s%s helper=%s conf=%s",
			opts->retries, opts->timeout, opts->allow_remote ? " allow_remote" : "",
			opts->forward_pass ? " forward_pass" : "", opts->quiet ? " quiet" : "",
			opts->announce ? " announce" : "",
			opts->helper, opts->conf != NULL ? opts->conf : "(the helper's)");
	return rc;
}
