/*
 * pingate_caller.c — who is asking, and from where.
 *
 * A PIN is a short secret that only a lockout makes safe, so the module
 * offers it only to the person it belongs to, at the machine:
 *
 *  - The owner: the calling process's real uid is the uid of PAM_USER, or
 *    the caller is root (login, gdm, lightdm, a root-run locker). A root
 *    process whose stdin is a unix socket serves whoever connected — polkit's
 *    socket-activated agent helper (polkit >= 125) runs as root for any
 *    user's agent — so there the caller is the peer (SO_PEERCRED), and the
 *    rules below apply to its uid and pid. `su alice`
 *    run by bob, polkit's agent helper asking bob for an admin's password,
 *    and sudo's targetpw/rootpw all authenticate someone other than their
 *    caller: their PAM_RUSER (or real uid) names another user, and the PIN
 *    is not offered — otherwise any local user could spend, and disable,
 *    another user's few guesses and learn whether they have a PIN at all.
 *
 *  - Local: PAM_RHOST empty or a loopback name, and, where logind runs, the
 *    caller's session a local one of a person. sudo or pkexec inside an ssh
 *    session carry no PAM_RHOST; logind marks that session REMOTE=1 in its
 *    state file /run/systemd/sessions/ID, and the caller's cgroup path is the
 *    session's scope (/user.slice/user-UID.slice/session-ID.scope). Only
 *    sessions of CLASS user, greeter or lock-screen are local: a cron job's
 *    "background" session is not someone at the machine. A non-root caller
 *    outside any session scope is local only under the user's own service
 *    manager (user@UID.service), and then only while every session the user
 *    has is local. Without logind PAM_RHOST alone decides.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/socket.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "pingate_module.h"

#ifndef PINGATE_SESSIONS_DIR
#define PINGATE_SESSIONS_DIR "/run/systemd/sessions"
#endif
#ifndef PINGATE_USERS_DIR
#define PINGATE_USERS_DIR "/run/systemd/users"
#endif

#define SESSION_ID_MAX 64
#define SESSION_CLASS_MAX 32
#define USERS_LINE_MAX 65536

static bool lookup_uid(const char *user, uid_t *uid)
{
	struct passwd entry, *found = NULL;
	char buffer[4096];

	if (getpwnam_r(user, &entry, buffer, sizeof(buffer), &found) != 0 || found == NULL)
		return false;
	*uid = found->pw_uid;
	return true;
}

/*
 * A root process whose stdin is an AF_UNIX socket was started for the
 * process that connected (socket activation, inetd style): that peer is the
 * caller. A TCP socket (sshd run from inetd) is no such peer, and anything
 * else on stdin (a terminal, a pipe, /dev/null) leaves the caller as is.
 * False if the peer cannot be known: nothing is offered.
 */
bool pingate_find_caller(pam_handle_t *pamh, const struct pingate_options *opts,
		struct pingate_caller *caller)
{
	struct ucred peer;
	socklen_t len = sizeof(int);
	int domain = -1;

	caller->uid = getuid();
	caller->pid = 0;
	if (caller->uid != 0 ||
	    getsockopt(STDIN_FILENO, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_UNIX)
		return true;
	len = sizeof(peer);
	if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.pid <= 0) {
		pam_syslog(pamh, LOG_WARNING, "stdin is a unix socket without a known peer: not offered");
		return false;
	}
	caller->uid = peer.uid;
	caller->pid = peer.pid;
	if (opts->debug)
		pam_syslog(pamh, LOG_DEBUG, "stdin is a unix socket: the caller is its peer, uid %u pid %d",
			(unsigned)peer.uid, (int)peer.pid);
	return true;
}

bool pingate_caller_owns(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *who, const char *user)
{
	const void *ruser = NULL;
	uid_t caller = who->uid, owner;

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

/* Where the caller's process is, from its cgroup; a higher value wins. */
enum scope { SCOPE_NONE, SCOPE_USER_MANAGER, SCOPE_UNREADABLE, SCOPE_FOUND };

/* True if text[0..len) is a logind session ID: letters and digits. */
static bool is_session_id(const char *text, size_t len)
{
	if (len == 0 || len >= SESSION_ID_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)text[i]))
			return false;
	return true;
}

/*
 * The session ID of a cgroup path that is exactly logind's layout,
 * "/user.slice/user-UID.slice/session-ID.scope" (then "/" or the end). A
 * "session-N.scope" anywhere else — say under the user's own
 * user@UID.service, where the user may create cgroups — is not a session.
 */
static bool session_in_path(const char *path, char id[SESSION_ID_MAX])
{
	const char *p = path, *end;
	size_t len;

	if (strncmp(p, "/user.slice/user-", 17) != 0)
		return false;
	p += 17;
	p += strspn(p, "0123456789");
	if (strncmp(p, ".slice/session-", 15) != 0)
		return false;
	p += 15;
	end = strstr(p, ".scope");
	if (end == NULL || (end[6] != '/' && end[6] != '\0'))
		return false;
	len = (size_t)(end - p);
	if (!is_session_id(p, len))
		return false;
	memcpy(id, p, len);
	id[len] = '\0';
	return true;
}

/*
 * True if path is inside uid's own service manager,
 * "/user.slice/user-UID.slice/user@UID.service/...".
 */
static bool user_manager_in_path(const char *path, uid_t uid)
{
	char prefix[96];

	snprintf(prefix, sizeof(prefix), "/user.slice/user-%u.slice/user@%u.service/",
		(unsigned)uid, (unsigned)uid);
	return strncmp(path, prefix, strlen(prefix)) == 0;
}

/*
 * The caller's logind session, from the line of its cgroup file
 * (/proc/PID/cgroup) that logind manages: cgroup v2's "0::PATH" or v1's
 * "N:name=systemd:PATH". A line too long to read whole is SCOPE_UNREADABLE
 * (treated as remote); a path in the caller's own user@UID.service is
 * SCOPE_USER_MANAGER.
 */
static enum scope find_session_id(const struct pingate_caller *caller, char id[SESSION_ID_MAX])
{
	char line[4096], path[64];
	enum scope found = SCOPE_NONE;
	FILE *f;

	if (caller->pid == 0)
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	else
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)caller->pid);
	f = fopen(path, "re");

	if (f == NULL)
		return SCOPE_NONE;
	while (found < SCOPE_UNREADABLE && fgets(line, sizeof(line), f) != NULL) {
		char *path;
		size_t len = strlen(line);

		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			found = SCOPE_UNREADABLE;
			break;
		}
		if (strncmp(line, "0::", 3) == 0)
			path = line + 3;
		else if ((path = strstr(line, ":name=systemd:")) != NULL)
			path += strlen(":name=systemd:");
		else
			continue;
		if (session_in_path(path, id))
			found = SCOPE_FOUND;
		else if (user_manager_in_path(path, caller->uid))
			found = SCOPE_USER_MANAGER;
	}
	fclose(f);
	return found;
}

/* The session classes of a person at a seat; "background" (cron) and the rest are not. */
static bool is_local_class(const char *class)
{
	return strcmp(class, "user") == 0 || strcmp(class, "greeter") == 0 ||
		strcmp(class, "lock-screen") == 0;
}

/* The session of a user's service manager (systemd >= 256): not a login. */
static bool is_manager_class(const char *class)
{
	return strcmp(class, "manager") == 0 || strcmp(class, "manager-early") == 0;
}

/*
 * Reads logind's state file for session `id`: *remote from REMOTE=, *uid
 * from UID= (-1 if absent), class from CLASS= ("" if absent). False if the
 * file cannot be read.
 */
static bool read_session(const char *id, bool *remote, long *uid, char class[SESSION_CLASS_MAX])
{
	char path[sizeof(PINGATE_SESSIONS_DIR) + SESSION_ID_MAX + 1];
	char line[512];
	FILE *f;

	*remote = false;
	*uid = -1;
	class[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", PINGATE_SESSIONS_DIR, id);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "REMOTE=1") == 0)
			*remote = true;
		else if (strncmp(line, "UID=", 4) == 0)
			*uid = strtol(line + 4, NULL, 10);
		else if (strncmp(line, "CLASS=", 6) == 0 && strlen(line + 6) < SESSION_CLASS_MAX)
			memcpy(class, line + 6, strlen(line + 6) + 1);
	}
	fclose(f);
	return true;
}

/*
 * The caller's own session decides: remote if logind says REMOTE=1, if its
 * class is not a person's at the machine (user, greeter, lock-screen), if
 * its state cannot be read, or if it belongs to someone other than a
 * non-root caller (a session file a user points at is not theirs). With
 * skip_manager, the user's service manager's own session counts as local.
 */
static bool session_is_remote(pam_handle_t *pamh, const struct pingate_caller *who, const char *id,
		bool skip_manager)
{
	uid_t caller = who->uid;
	char class[SESSION_CLASS_MAX];
	bool remote;
	long owner;

	if (!read_session(id, &remote, &owner, class)) {
		pam_syslog(pamh, LOG_WARNING, "cannot read logind session %s: treated as remote", id);
		return true;
	}
	if (caller != 0 && owner != (long)caller) {
		pam_syslog(pamh, LOG_WARNING, "logind session %s is not the caller's: treated as remote", id);
		return true;
	}
	if (skip_manager && is_manager_class(class))
		return false;
	return remote || !is_local_class(class);
}

/*
 * A non-root caller under its own service manager, on a system where logind
 * runs: a process started through it (a desktop terminal, or
 * `systemd-run --user sudo …` from an ssh shell) sits under user@UID.service,
 * not in any session's scope. It is treated as remote when any of the
 * user's sessions (/run/systemd/users/UID, SESSIONS=) is not local, other
 * than the service manager's own, or when that list is missing.
 */
static bool user_has_remote_session(pam_handle_t *pamh, const struct pingate_caller *caller)
{
	char path[sizeof(PINGATE_USERS_DIR) + 24];
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", PINGATE_USERS_DIR, (unsigned)caller->uid);
	f = fopen(path, "re");
	if (f == NULL) {
		pam_syslog(pamh, LOG_WARNING, "cannot read %s: treated as remote", path);
		return true;  /* no login at all: nobody at the machine */
	}
	/* SESSIONS= holds every session: read each line whole, or not at all. */
	while (!found && (len = getline(&line, &size, f)) >= 0) {
		char *save = NULL, *word;

		if (len > USERS_LINE_MAX) {
			pam_syslog(pamh, LOG_WARNING, "%s: line over %d bytes: treated as remote",
				path, USERS_LINE_MAX);
			found = true;
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "SESSIONS=", 9) != 0)
			continue;
		for (word = strtok_r(line + 9, " ", &save); word != NULL && !found; word = strtok_r(NULL, " ", &save))
			if (is_session_id(word, strlen(word)))
				found = session_is_remote(pamh, caller, word, true);
	}
	if (!found && ferror(f)) {
		pam_syslog(pamh, LOG_WARNING, "cannot read %s whole: treated as remote", path);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

static bool logind_runs(void)
{
	return access(PINGATE_SESSIONS_DIR, F_OK) == 0;
}

bool pingate_caller_is_remote(pam_handle_t *pamh, const struct pingate_options *opts,
		const struct pingate_caller *caller)
{
	const void *rhost = NULL;
	char session[SESSION_ID_MAX];
	bool remote = false;

	if (pam_get_item(pamh, PAM_RHOST, &rhost) == PAM_SUCCESS && !is_local_host(rhost)) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "remote request from %s", (const char *)rhost);
		return true;
	}
	enum scope scope = find_session_id(caller, session);

	switch (scope) {
	case SCOPE_FOUND:
		remote = session_is_remote(pamh, caller, session, false);
		break;
	case SCOPE_UNREADABLE:
		remote = true;
		break;
	case SCOPE_USER_MANAGER:
	case SCOPE_NONE:
		/*
		 * No logind: PAM_RHOST alone decides. Root callers (login, display
		 * managers) run outside sessions by design. Anyone else outside a
		 * session is local only under their own service manager: a system
		 * service (cron.service, a web server's CGI) is nobody at the machine.
		 */
		if (!logind_runs() || caller->uid == 0)
			remote = false;
		else if (scope == SCOPE_NONE)
			remote = true;
		else
			remote = user_has_remote_session(pamh, caller);
		break;
	}
	if (remote && opts->debug)
		pam_syslog(pamh, LOG_DEBUG, "the caller's logind session is remote");
	return remote;
}
