/*
 * evil_preload.c — a library the hostile-environment attack tries to inject
 * into the setgid helper (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, GCONV_PATH).
 * If the loader ever ran it, it would leave a marker file and abort, so the
 * attack sees both a changed answer and the marker.
 * Build: cc -shared -fPIC -DMARKER='"/path/marker"' evil_preload.c -o evil.so
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void injected(void)
{
	int fd = open(MARKER, O_WRONLY | O_CREAT | O_APPEND, 0666);

	if (fd >= 0) {
		(void)write(fd, "injected\n", 9);
		close(fd);
	}
	abort();
}

/* LD_AUDIT asks for this before anything else. */
unsigned int la_version(unsigned int version)
{
	injected();
	return version;
}
