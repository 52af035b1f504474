/* socket_flood.c — a local account's flood of pingate-verify.socket, for
 * socket_flood_test.sh. Built static on the host and run inside the booted
 * containers, whose trees have no compiler and no python.
 *
 *   socket_flood hold N SECONDS    keeps N connections open for SECONDS,
 *                                  sending nothing; each one the far end
 *                                  closes (systemd at MaxConnections, the
 *                                  verifier at its first-message deadline)
 *                                  is opened again at once
 *   socket_flood quick N           opens N connections one after the other,
 *                                  each closed as soon as it is made
 *
 * Prints one line: "opened A closed-by-far-end C refused R" (R: connect
 * failed, e.g. a full backlog; retried 1 ms later), also when stopped by
 * SIGTERM (systemctl stop). Exits 0.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SOCKET_PATH "/run/pingate-verify/socket"
#define MAX_HELD 1024

static unsigned long opened, closed_by_far_end, refused;
static volatile sig_atomic_t stopped;

static void stop(int signal)
{
	(void)signal;
	stopped = 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A connection, or -1 after a refused connect (counted, and paused 1 ms). */
static int connect_once(void)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	strcpy(address.sun_path, SOCKET_PATH);
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0) {
		opened++;
		return fd;
	}
	refused++;
	close(fd);
	usleep(1000);
	return -1;
}

static void hold(int count, double seconds)
{
	static struct pollfd held[MAX_HELD];
	double end = now() + seconds;
	int i;

	for (i = 0; i < count; i++)
		held[i] = (struct pollfd){ .fd = -1, .events = POLLIN };
	while (!stopped && now() < end) {
		for (i = 0; i < count; i++)
			if (held[i].fd < 0)
				held[i].fd = connect_once();
		if (poll(held, count, 20) <= 0)
			continue;
		for (i = 0; i < count; i++)
			if (held[i].fd >= 0 && held[i].revents != 0) {
				/* An answer (the verifier's refusal) or a hang-up: closed either way. */
				closed_by_far_end++;
				close(held[i].fd);
				held[i].fd = -1;
			}
	}
}

static void quick(unsigned long count)
{
	while (!stopped && opened < count) {
		int fd = connect_once();

		if (fd >= 0)
			close(fd);
	}
}

int main(int argc, char **argv)
{
	/* No SA_RESTART: poll and connect return EINTR, and the loop ends. */
	struct sigaction on_term = { .sa_handler = stop };

	sigaction(SIGTERM, &on_term, NULL);
	if (argc == 4 && strcmp(argv[1], "hold") == 0 && atoi(argv[2]) > 0 && atoi(argv[2]) <= MAX_HELD)
		hold(atoi(argv[2]), atof(argv[3]));
	else if (argc == 3 && strcmp(argv[1], "quick") == 0 && atol(argv[2]) > 0)
		quick(strtoul(argv[2], NULL, 10));
	else {
		fprintf(stderr, "usage: socket_flood hold N SECONDS | quick N\n");
		return 2;
	}
	printf("opened %lu closed-by-far-end %lu refused %lu\n", opened, closed_by_far_end, refused);
	return 0;
}
