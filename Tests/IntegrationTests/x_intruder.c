/* x_intruder.c — a hostile X client for lock_test.sh: the things any client
 * on the display may do to a lock screen's window.
 *
 *   x_intruder steal-grab COVER SECONDS
 *       Freezes the server (XGrabServer), unmaps the window COVER, grabs the
 *       keyboard and pointer while the locker cannot react, lets the server
 *       go, holds the grabs SECONDS seconds, then exits (releasing them).
 *   x_intruder steal-pointer COVER SECONDS
 *       The same, with only the pointer grabbed (the keyboard left free).
 *   x_intruder try-keyboard TIMES
 *       Tries to grab the keyboard TIMES times, 10 ms apart (letting it go
 *       at once); prints how many tries got it.
 *   x_intruder raise-war SECONDS
 *       Maps an override-redirect window and raises it whenever another
 *       top-level window is restacked, for SECONDS; prints how many times.
 *   x_intruder reparent COVER
 *       Moves the window COVER into a new unmapped window of its own (which
 *       makes it unviewable and ends the locker's grabs), waits a second.
 *   x_intruder destroy COVER
 *       Destroys the window COVER (X11 lets any client do that).
 *   x_intruder composite-raise
 *       Redirects the root's children as a compositor does, maps an
 *       override-redirect window, prints its id; each line "raise" on stdin
 *       raises it; EOF exits. Under redirection X sends no VisibilityNotify.
 *
 * Build: cc x_intruder.c -o x_intruder -lX11 -lXcomposite
 */
#include <X11/Xlib.h>
#include <X11/extensions/Xcomposite.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int steal_grab(Display *display, Window cover, unsigned seconds, int take_keyboard)
{
	Window root = DefaultRootWindow(display);
	int keyboard = GrabSuccess, pointer;

	XGrabServer(display);
	XUnmapWindow(display, cover);
	if (take_keyboard)
		keyboard = XGrabKeyboard(display, root, False, GrabModeAsync, GrabModeAsync, CurrentTime);
	pointer = XGrabPointer(display, root, False, ButtonPressMask, GrabModeAsync, GrabModeAsync,
			       None, None, CurrentTime);
	XUngrabServer(display);
	XSync(display, False);
	printf("keyboard %s, pointer %s\n", !take_keyboard ? "left" : keyboard == GrabSuccess ? "grabbed" : "refused",
	       pointer == GrabSuccess ? "grabbed" : "refused");
	fflush(stdout);
	sleep(seconds);
	return keyboard == GrabSuccess && pointer == GrabSuccess ? 0 : 1;
}

static int try_keyboard(Display *display, unsigned times)
{
	unsigned got = 0;

	for (unsigned i = 0; i < times; i++) {
		if (XGrabKeyboard(display, DefaultRootWindow(display), False, GrabModeAsync, GrabModeAsync,
				  CurrentTime) == GrabSuccess) {
			got++;
			XUngrabKeyboard(display, CurrentTime);
		}
		XSync(display, False);
		usleep(10000);
	}
	printf("%u\n", got);
	return 0;
}

static int raise_war(Display *display, unsigned seconds)
{
	Window root = DefaultRootWindow(display);
	XSetWindowAttributes attributes = { .override_redirect = True };
	Window window = XCreateWindow(display, root, 0, 0, 100, 100, 0, CopyFromParent, InputOutput,
				      CopyFromParent, CWOverrideRedirect, &attributes);
	time_t end = time(NULL) + seconds;
	long raises = 0;

	XSelectInput(display, root, SubstructureNotifyMask);
	XMapRaised(display, window);
	XSync(display, False);
	while (time(NULL) < end) {
		XEvent event;

		if (XPending(display) == 0) {
			usleep(1000);
			continue;
		}
		XNextEvent(display, &event);
		if (event.type == ConfigureNotify && event.xconfigure.window != window) {
			XRaiseWindow(display, window);
			XFlush(display);
			raises++;
		}
	}
	printf("%ld\n", raises);
	return 0;
}

static int reparent(Display *display, Window cover)
{
	Window jail = XCreateSimpleWindow(display, DefaultRootWindow(display), 0, 0, 10, 10, 0, 0, 0);

	XReparentWindow(display, cover, jail, 0, 0);
	XSync(display, False);
	sleep(1);
	return 0;
}

static int destroy(Display *display, Window cover)
{
	XDestroyWindow(display, cover);
	XSync(display, False);
	return 0;
}

static int composite_raise(Display *display)
{
	Window root = DefaultRootWindow(display);
	XSetWindowAttributes attributes = { .override_redirect = True };
	Window window;
	char line[64];

	XCompositeRedirectSubwindows(display, root, CompositeRedirectManual);
	window = XCreateWindow(display, root, 0, 0, 200, 200, 0, CopyFromParent, InputOutput,
			       CopyFromParent, CWOverrideRedirect, &attributes);
	XStoreName(display, window, "x_intruder");
	XMapWindow(display, window);
	XSync(display, False);
	printf("0x%lx\n", window);
	fflush(stdout);
	while (fgets(line, sizeof line, stdin) != NULL) {
		if (strcmp(line, "raise\n") == 0) {
			XRaiseWindow(display, window);
			XSync(display, False);
			printf("raised\n");
			fflush(stdout);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	Display *display = XOpenDisplay(NULL);

	if (display == NULL) {
		fprintf(stderr, "x_intruder: cannot open the display\n");
		return 2;
	}
	if (argc == 4 && strcmp(argv[1], "steal-grab") == 0)
		return steal_grab(display, (Window)strtoul(argv[2], NULL, 0), (unsigned)atoi(argv[3]), 1);
	if (argc == 4 && strcmp(argv[1], "steal-pointer") == 0)
		return steal_grab(display, (Window)strtoul(argv[2], NULL, 0), (unsigned)atoi(argv[3]), 0);
	if (argc == 3 && strcmp(argv[1], "try-keyboard") == 0)
		return try_keyboard(display, (unsigned)atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "raise-war") == 0)
		return raise_war(display, (unsigned)atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "reparent") == 0)
		return reparent(display, (Window)strtoul(argv[2], NULL, 0));
	if (argc == 3 && strcmp(argv[1], "destroy") == 0)
		return destroy(display, (Window)strtoul(argv[2], NULL, 0));
	if (argc == 2 && strcmp(argv[1], "composite-raise") == 0)
		return composite_raise(display);
	fprintf(stderr, "usage: x_intruder steal-grab|steal-pointer COVER SECONDS | try-keyboard TIMES | raise-war SECONDS |"
		" reparent COVER | destroy COVER | composite-raise\n");
	return 2;
}
