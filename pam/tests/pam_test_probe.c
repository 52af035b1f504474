/*
 * pam_test_probe.c — a test-only module (never installed) that records what
 * libpam ran, for the differential test of the stack reader
 * (Tests/IntegrationTests/stack_reader_test.sh).
 *
 *   auth CONTROL /path/to/a/copy/of/pam_test_probe.so NAME [ret=CODE] [...]
 *
 * Each pam_sm_authenticate appends one line to the file the PAM environment
 * variable PINGATE_PROBE_LOG names (pam_harness --env puts it there):
 *
 *   PATH<TAB>ARGUMENT<TAB>ARGUMENT...
 *
 * PATH is the file libpam loaded this copy from (dladdr), so a test sees how
 * libpam resolved the module path; the arguments are as libpam split them.
 * With [info=TEXT] it then says TEXT as an info message, as a fingerprint
 * reader's module says "Place your finger on the fingerprint reader"
 * (gnome_test.sh). It then returns CODE, a return name of pam.d(5)'s
 * [value=action] syntax (success, auth_err, perm_denied, ...), PAM_IGNORE
 * when there is none.
 * Copies of this file under other names stand for other modules.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

/* pam.d(5)'s return names, in the order of their codes (libpam's pam_tokens.h). */
static const char *const return_names[] = {
	"success", "open_err", "symbol_err", "service_err", "system_err",
	"buf_err", "perm_denied", "auth_err", "cred_insufficient",
	"authinfo_unavail", "user_unknown", "maxtries", "new_authtok_reqd",
	"acct_expired", "session_err", "cred_unavail", "cred_expired",
	"cred_err", "no_module_data", "conv_err", "authtok_err",
	"authtok_recover_err", "authtok_lock_busy", "authtok_disable_aging",
	"try_again", "ignore", "abort", "authtok_expired", "module_unknown",
	"bad_item", "conv_again", "incomplete",
};

static int wanted_return(int argc, const char **argv)
{
	size_t code;
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "ret=", 4) != 0)
			continue;
		for (code = 0; code < sizeof(return_names) / sizeof(return_names[0]); code++)
			if (strcmp(argv[i] + 4, return_names[code]) == 0)
				return (int)code;
	}
	return PAM_IGNORE;
}

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const char *log = pam_getenv(pamh, "PINGATE_PROBE_LOG");
	Dl_info self = { 0 };
	FILE *file;
	int i;

	(void)flags;
	if (log != NULL && (file = fopen(log, "a")) != NULL) {
		dladdr((void *)pam_sm_authenticate, &self);
		fputs(self.dli_fname != NULL ? self.dli_fname : "?", file);
		for (i = 0; i < argc; i++)
			fprintf(file, "\t%s", argv[i]);
		fputc('\n', file);
		fclose(file);
	}
	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], "info=", 5) == 0)
			pam_info(pamh, "%s", argv[i] + 5);
	return wanted_return(argc, argv);
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}
