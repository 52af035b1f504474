/*
 * pam_test_forker.c — a test-only module (never installed) for lock_test.sh:
 * forks a child that does not exec and lives on for 20 seconds, as a module that starts a daemon by forking might. The child
 * keeps every descriptor the application had, close-on-exec ones included.
 * Returns PAM_IGNORE.
 */
#include <stdlib.h>
#include <unistd.h>
#include <security/pam_modules.h>

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	if (fork() == 0) {
		sleep(20);
		_exit(0);
	}
	return PAM_IGNORE;
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}
