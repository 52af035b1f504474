/*
 * pingate_caller.c — who is asking, and from where.
 *
 * A PIN is a short secret that only a lockout makes safe, so the module
 * offers it only to the person it belongs to, at the machine:
 *
 *  - The owner: the calling process's real uid is the uid of PAM_USER, or
 *    the caller is root (login, gdm, lightdm, a root-run locker). `su alice`
 *    run by bob, polkit's agent helper asking bob for an admin's password,
 *    and sudo's targetpw/rootpw all authenticate someone other than their
 *    caller: their PAM_RUSER (or real uid) names another user, and the PIN
 *    is not offered — otherwise any local user could spend, and disable,
 *    another user's few guesses and learn whether they have a PIN at all.
 *
 *  - Local: PAM_RHOST empty or a loopback name, and, where logind runs, the
 *    caller's session not remote. sudo or pkexec inside an ssh session carry
 *    no PAM_RHOST; logind marks that session REMOTE=1 in its state file
 *    /run/systemd/sessions/ID, and the caller's cgroup path names the
 *    session's scope (…/session-ID.scope). Without logind there is no such
 *    line, and PAM_RHOST alone decides.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

#ifndef PINGATE_CGROUP_PATH
#define PINGATE_CGROUP_PATH "/proc/self/cgroup"
#endif
#ifndef PINGATE_SESSIONS_DIR
#define PINGATE_SESSIONS_DIR "/run/systemd/sessions"
#endif

#define SESSION_ID_MAX 64

static bool lookup_uid(const char *user, uid_t *uid)
{
	struct passwd entry, *found = NULL;
	char buffer[4096];

	if (getpwnam_r(user, &entry, buffer, sizeof(buffer), &found) != 0 || found == NULL)
		return false;
	*uid = found->pw_uid;
	return true;
}

bool pingate_caller_owns(pam_handle_t *pamh, const struct pingate_options *opts, const char *user)
{
	const void *ruser = NULL;
	uid_t caller = getuid(), owner;

	if (pam_get_item(pamh, PAM_RUSER, &ruser) == PAM_SUCCESS && ruser != NULL &&
	    ((const char *)ruser)[0] != '\0' && strcmp(ruser, user) != 0) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "PAM_RUSER %s is not %s: not offered",
				(const char *)ruser, user);
		return false;
	}
	if (caller == 0)
		return true;
	if (!lookup_uid(user, &owner) || owner != caller) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "caller uid %u is not %s: not offered",
				(unsigned)caller, user);
		return false;
	}
	return true;
}

static bool is_local_host(const char *rhost)
{
	return rhost == NULL || rhost[0] == '\0' || strcmp(rhost, "localhost") == 0 ||
		strcmp(rhost, "127.0.0.1") == 0 || strcmp(rhost, "::1") == 0;
}

/*
 * The ID in the first "session-ID.scope" path component of the calling
 * process's cgroup lines (any hierarchy: cgroup v2's "0::" line or v1's
 * "name=systemd" one). False if there is none: no logind session.
 */
static bool find_session_id(char id[SESSION_ID_MAX])
{
	char line[4096];
	bool found = false;
	FILE *f = fopen(PINGATE_CGROUP_PATH, "re");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *start = strstr(line, "/session-");
		char *end;
		size_t len;

		if (start == NULL)
			continue;
		start += strlen("/session-");
		end = strstr(start, ".scope");
		if (end == NULL || (end[6] != '/' && end[6] != '\n' && end[6] != '\0'))
			continue;
		len = (size_t)(end - start);
		if (len == 0 || len >= SESSION_ID_MAX)
			continue;
		memcpy(id, start, len);
		id[len] = '\0';
		found = true;
		for (size_t i = 0; i < len; i++)
			if (!isalnum((unsigned char)id[i]))
				found = false;  /* logind's IDs are alphanumeric: not a session scope */
	}
	fclose(f);
	return found;
}

/*
 * 1 if logind's state file for the session says REMOTE=1, 0 if it says
 * otherwise, -1 if it cannot be read (the session is then treated as
 * remote: a PIN is a convenience, the password is always there).
 */
static int session_is_remote(pam_handle_t *pamh, const char *id)
{
	char path[sizeof(PINGATE_SESSIONS_DIR) + SESSION_ID_MAX + 1];
	char line[512];
	int remote = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", PINGATE_SESSIONS_DIR, id);
	f = fopen(path, "re");
	if (f == NULL) {
		pam_syslog(pamh, LOG_WARNING, "cannot read logind session %s (%m): treated as remote", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL)
		if (strcmp(line, "REMOTE=1\n") == 0 || strcmp(line, "REMOTE=1") == 0)
			remote = 1;
	fclose(f);
	return remote;
}

bool pingate_caller_is_remote(pam_handle_t *pamh, const struct pingate_options *opts)
{
	const void *rhost = NULL;
	char session[SESSION_ID_MAX];

	if (pam_get_item(pamh, PAM_RHOST, &rhost) == PAM_SUCCESS && !is_local_host(rhost)) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "remote request from %s", (const char *)rhost);
		return true;
	}
	if (!find_session_id(session))
		return false;  /* no logind: PAM_RHOST alone decides */
	if (session_is_remote(pamh, session) != 0) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "logind session %s is remote", session);
		return true;
	}
	return false;
}
