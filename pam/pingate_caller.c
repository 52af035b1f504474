/*
 * pingate_caller.c — who is asking.
 *
 * A PIN is a short secret that only a lockout makes safe, so the module
 * offers it only to the person it belongs to: the calling process's real uid
 * is the uid of PAM_USER, or the caller is root (login, gdm, lightdm, a
 * root-run locker). A root process whose stdin is a unix socket serves
 * whoever connected — polkit's socket-activated agent helper (polkit >= 127)
 * runs as root for any user's agent — so there the caller is the peer
 * (SO_PEERCRED). `su alice` run by bob, polkit's agent helper asking bob for
 * an admin's password, and sudo's targetpw/rootpw all authenticate someone
 * other than their caller: their PAM_RUSER (or real uid) names another user,
 * and the PIN is not offered — otherwise any local user could spend, and
 * disable, another user's few guesses and learn whether they have a PIN.
 *
 * Whether the caller is at the machine is not decided here: the helper
 * decides it for every path (LocalityRule.swift), from the caller's uid and
 * pid that this file finds and the module passes on.
 */
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
	caller->pid = getpid();
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
	char ruser_text[PINGATE_LOG_TEXT_MAX], user_text[PINGATE_LOG_TEXT_MAX];

	if (pam_get_item(pamh, PAM_RUSER, &ruser) == PAM_SUCCESS && ruser != NULL &&
	    ((const char *)ruser)[0] != '\0' && strcmp(ruser, user) != 0) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "PAM_RUSER %s is not %s: not offered",
				pingate_log_text(ruser, ruser_text), pingate_log_text(user, user_text));
		return false;
	}
	if (caller == 0)
		return true;
	if (!lookup_uid(user, &owner) || owner != caller) {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "caller uid %u is not %s: not offered",
				(unsigned)caller, pingate_log_text(user, user_text));
		return false;
	}
	return true;
}
