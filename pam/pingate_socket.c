/*
 * pingate_socket.c — asking pingate-verify.socket instead of spawning the
 * helper (pingate_protocol.h, SOCKET).
 *
 * A spawned helper cannot count attempts where the caller runs with
 * no_new_privs (the setgid bit is then not applied) or where the store is
 * read-only in the caller's mount namespace: polkit 127 runs its agent
 * helper so (NoNewPrivileges=yes, ProtectSystem=strict). There the module
 * connects to the socket, and systemd starts a verifier for the connection
 * in a unit of its own, with the store writable. Elsewhere spawning stays
 * the way (it costs no unit start), and where nothing listens on the socket
 * (no systemd, a container without it) the module spawns as before.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>

#include "pingate_module.h"

bool pingate_socket_needed(void)
{
	struct statvfs store;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return true;
	return statvfs(PINGATE_STORE_DIR, &store) == 0 && (store.f_flag & ST_RDONLY) != 0;
}

int pingate_socket_connect(bool *absent, char *why, size_t why_size)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd;

	*absent = false;
	_Static_assert(sizeof(PINGATE_VERIFY_SOCKET) <= sizeof(address.sun_path), "socket path too long");
	memcpy(address.sun_path, PINGATE_VERIFY_SOCKET, sizeof(PINGATE_VERIFY_SOCKET));
	/* Non-blocking: a full backlog is an error now, not a wait. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(why, why_size, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)&address, sizeof(address)) == 0)
		return fd;
	/* Nothing there, or nobody listening: no systemd to start a verifier. */
	*absent = errno == ENOENT || errno == ECONNREFUSED || errno == ENOTDIR;
	snprintf(why, why_size, "cannot connect to %s: %s", PINGATE_VERIFY_SOCKET, strerror(errno));
	close(fd);
	return -1;
}

/*
 * The "end N" line that closes an answer: N, with the line cut off the
 * reply; -1 if the answer does not end so.
 */
static int take_end_line(char *reply, size_t used)
{
	static const char word[] = PINGATE_SOCKET_END_WORD " ";
	char *line, *end;
	long status;

	if (used < 2 || reply[used - 1] != '\n')
		return -1;
	reply[used - 1] = '\0';
	line = strrchr(reply, '\n');
	line = line == NULL ? reply : line + 1;
	if (strncmp(line, word, sizeof(word) - 1) != 0)
		return -1;
	errno = 0;
	status = strtol(line + sizeof(word) - 1, &end, 10);
	if (errno != 0 || *end != '\0' || end == line + sizeof(word) - 1 || status < 0 || status > 255)
		return -1;
	*line = '\0';
	return (int)status;
}

int pingate_socket_exchange(int fd, const char *request, size_t len, char *reply, size_t reply_size,
		unsigned timeout, char *why, size_t why_size)
{
	struct timespec deadline = pingate_deadline_after(timeout);
	struct pollfd readable = { .fd = fd, .events = POLLIN };
	ssize_t got;
	int ready, status;

	reply[0] = '\0';
	/* One message, into an empty socket: never blocks. */
	if (send(fd, request, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
		if (errno == EPIPE || errno == ECONNRESET)
			return PINGATE_RUN_ENDED;
		snprintf(why, why_size, "cannot send to %s: %s", PINGATE_VERIFY_SOCKET, strerror(errno));
		return -1;
	}
	do
		ready = poll(&readable, 1, pingate_milliseconds_left(&deadline));
	while (ready < 0 && errno == EINTR);
	if (ready == 0) {
		snprintf(why, why_size, "%s did not answer within %u s (stopped or hung)", PINGATE_VERIFY_SOCKET, timeout);
		return -1;
	}
	/* MSG_TRUNC: the whole message's length, so an over-long one is seen. */
	do
		got = ready < 0 ? -1 : recv(fd, reply, reply_size - 1, MSG_TRUNC | MSG_DONTWAIT);
	while (got < 0 && errno == EINTR);
	if (got == 0 || (got < 0 && errno == ECONNRESET))
		return PINGATE_RUN_ENDED;  /* closed unanswered: it stopped waiting */
	if (got < 0) {
		snprintf(why, why_size, "cannot read from %s: %s", PINGATE_VERIFY_SOCKET, strerror(errno));
		return -1;
	}
	if ((size_t)got <= reply_size - 1)
		reply[got] = '\0';
	if ((size_t)got > reply_size - 1 || (status = take_end_line(reply, (size_t)got)) < 0) {
		reply[0] = '\0';
		snprintf(why, why_size, "unreadable or over-long answer from %s", PINGATE_VERIFY_SOCKET);
		return -1;
	}
	return status;
}
