/*
 * pam_test_authtok.c — a test-only module (never installed) for stacks
 * around pam_pingate.so in module_test.sh.
 *
 *   auth optional pam_test_authtok.so set    PAM_AUTHTOK := the PAM environment
 *                                            variable PINGATE_TEST_AUTHTOK, which
 *                                            pam_harness --authtok puts there
 *                                            (applications may not set PAM_AUTHTOK)
 *   auth required pam_test_authtok.so show   prints "NEXT authtok=<value|(unset)>" as
 *                                            an info message, even under PAM_SILENT,
 *                                            so a test sees the stack fell through
 *   auth optional pam_test_authtok.so log=FILE appends PAM_AUTHTOK, when set, to FILE as
 *                                            a line, and says nothing: what the modules
 *                                            after it would take as the password, for
 *                                            the desktop tests (desktop_lib.sh)
 *
 * All return PAM_IGNORE.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *authtok = NULL;
	const char *wanted;

	(void)flags;
	if (argc == 1 && strcmp(argv[0], "set") == 0) {
		wanted = pam_getenv(pamh, "PINGATE_TEST_AUTHTOK");
		if (wanted != NULL)
			pam_set_item(pamh, PAM_AUTHTOK, wanted);
	} else if (argc == 1 && strcmp(argv[0], "show") == 0) {
		pam_get_item(pamh, PAM_AUTHTOK, &authtok);
		pam_info(pamh, "NEXT authtok=%s", authtok != NULL ? (const char *)authtok : "(unset)");
	} else if (argc == 1 && strncmp(argv[0], "log=", 4) == 0) {
		pam_get_item(pamh, PAM_AUTHTOK, &authtok);
		if (authtok != NULL) {
			int fd = open(argv[0] + 4, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

			if (fd >= 0) {
				dprintf(fd, "%s\n", (const char *)authtok);
				close(fd);
			}
		}
	}
	return PAM_IGNORE;
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}
