/*
 * pingate_options.c — module options and the part of pingate.conf the
 * module reads.
 *
 * One parser, as in pam_faillock: set_option() takes a name and a value
 * from either source. Defaults are set first, then the config file, then
 * the module arguments, so the PAM line always has the last word. From the
 * config file only `services` is taken; every other key belongs to the
 * helper, which validates the file, so the module ignores them silently.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

enum option_origin { FROM_FILE, FROM_ARGS };

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
};

static void set_defaults(struct pingate_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->retries = 1;
	opts->timeout = PINGATE_TIMEOUT_DEFAULT;
	opts->helper = PINGATE_HELPER_PATH;
	opts->conf = PINGATE_CONF_PATH;
	strcpy(opts->services, PINGATE_DEFAULT_SERVICES);
}

/* "a, b  c" -> "a b c"; fails if the result does not fit. */
static int set_services(struct pingate_options *opts, const char *value)
{
	char list[PINGATE_SERVICES_MAX];
	size_t used = 0;
	const char *p = value;

	list[0] = '\0';
	while (*p != '\0') {
		size_t len;

		p += strspn(p, " \t,");
		len = strcspn(p, " \t,");
		if (len == 0)
			break;
		if (used + len + 2 > sizeof(list))
			return PAM_SERVICE_ERR;
		if (used > 0)
			list[used++] = ' ';
		memcpy(list + used, p, len);
		used += len;
		list[used] = '\0';
		p += len;
	}
	memcpy(opts->services, list, used + 1);
	return PAM_SUCCESS;
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
		const char *name, const char *value, enum option_origin origin)
{
	size_t i;
	int rc = PAM_SERVICE_ERR;

	if (strcmp(name, "services") == 0)
		rc = set_services(opts, value != NULL ? value : "");
	else if (origin == FROM_FILE)
		return PAM_SUCCESS;  /* the helper's key, not ours */
	else if (strcmp(name, "retries") == 0)
		rc = set_number(&opts->retries, value, 1, PINGATE_RETRIES_MAX);
	else if (strcmp(name, "timeout") == 0)
		rc = set_number(&opts->timeout, value, PINGATE_TIMEOUT_MIN, PINGATE_TIMEOUT_MAX);
	else if (strcmp(name, "prompt") == 0)
		rc = set_prompt(opts, value);
	else if (strcmp(name, "helper") == 0)
		rc = set_path(&opts->helper, value);
	else if (strcmp(name, "conf") == 0) {
		rc = set_path(&opts->conf, value);
		opts->conf_given = rc == PAM_SUCCESS;
	}
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

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/*
 * Only a missing file means defaults. A file that cannot be read, or read
 * whole (an over-long line or services list), may have narrowed the
 * services: false, and the caller offers nothing (the password still
 * works). Other keys and lines are the helper's, which validates them.
 */
static bool read_config_file(pam_handle_t *pamh, struct pingate_options *opts)
{
	char line[PINGATE_SERVICES_MAX + 64];
	unsigned lineno = 0;
	bool ok = true;
	FILE *f;

	f = fopen(opts->conf, "re");
	if (f == NULL) {
		if (errno != ENOENT) {
			pam_syslog(pamh, LOG_ERR, "cannot read %s, no PIN offered: %m", opts->conf);
			return false;
		}
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "no %s, using defaults", opts->conf);
		return true;
	}
	while (ok && fgets(line, sizeof(line), f) != NULL) {
		char *key, *value, *eq;
		size_t len = strlen(line);

		lineno++;
		if (len > 0 && line[len - 1] != '\n' && !feof(f)) {
			pam_syslog(pamh, LOG_ERR, "%s:%u: line too long, no PIN offered", opts->conf, lineno);
			ok = false;
			break;
		}
		line[strcspn(line, "#")] = '\0';
		eq = strchr(line, '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		key = trim(line);
		value = trim(eq + 1);
		if (strcmp(key, "services") == 0 &&
		    set_option(pamh, opts, key, value, FROM_FILE) != PAM_SUCCESS) {
			pam_syslog(pamh, LOG_ERR, "%s:%u: services list too long, no PIN offered",
				opts->conf, lineno);
			ok = false;
		}
	}
	if (ok && ferror(f)) {
		pam_syslog(pamh, LOG_ERR, "cannot read %s, no PIN offered", opts->conf);
		ok = false;
	}
	fclose(f);
	return ok;
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
	return set_option(pamh, opts, name, eq != NULL ? eq + 1 : NULL, FROM_ARGS);
}

int pingate_options_load(pam_handle_t *pamh, struct pingate_options *opts,
		int argc, const char **argv)
{
	int i, rc = PAM_SUCCESS;
	bool conf_read;

	set_defaults(opts);
	/* The file's location and debug come from the arguments, before the file. */
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "conf=", 5) == 0)
			(void)set_path(&opts->conf, argv[i] + 5);
		else if (strcmp(argv[i], "debug") == 0)
			opts->debug = true;
	}
	conf_read = read_config_file(pamh, opts);
	for (i = 0; i < argc && rc == PAM_SUCCESS; i++)
		rc = split_and_set(pamh, opts, argv[i]);
	if (!conf_read)
		opts->services[0] = '\0';  /* the allow-list is unknown: nothing is allowed */
	if (rc == PAM_SUCCESS && opts->debug)
		pam_syslog(pamh, LOG_DEBUG, "options: retries=%u timeout=%u%s%s%s helper=%s conf=%s services=%s",
			opts->retries, opts->timeout, opts->allow_remote ? " allow_remote" : "",
			opts->forward_pass ? " forward_pass" : "", opts->quiet ? " quiet" : "",
			opts->helper, opts->conf, opts->services);
	return rc;
}

bool pingate_service_allowed(const struct pingate_options *opts, const char *service)
{
	size_t len = strlen(service);
	const char *p = opts->services;

	if (len == 0)
		return false;
	while ((p = strstr(p, service)) != NULL) {
		bool starts = p == opts->services || p[-1] == ' ';
		bool ends = p[len] == '\0' || p[len] == ' ';

		if (starts && ends)
			return true;
		p += len;
	}
	return false;
}
