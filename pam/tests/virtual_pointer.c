/* virtual_pointer — a pointer for wayland_lock_test.sh on a headless wlroots
 * compositor, which has no pointer device of its own (so no client gets a
 * wl_pointer): a zwlr_virtual_pointer_v1 from the compositor's
 * zwlr_virtual_pointer_manager_v1 (sway has it), driven by its arguments:
 *
 *   virtual_pointer WIDTH HEIGHT STEP...
 *     move X Y    the pointer to (X, Y) of the WIDTH x HEIGHT layout
 *     press       the left button down      release   the left button up
 *     wait MS     a pause
 *
 * A test tool, not part of PinGate. Debian ships no XML of this wlroots
 * protocol (wlr-protocols is not packaged), so its two interfaces are
 * described here, as wlr-virtual-pointer-unstable-v1.xml (version 1) has
 * them; the requests are sent by their opcodes. The device lives for the
 * whole run: the locker gets its wl_pointer once the seat says it has a
 * pointer, so the first step waits 300 ms, and the last is followed by a
 * pause before the device goes (its events must arrive first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

static const struct wl_interface virtual_pointer_interface;

static const struct wl_interface *create_types[] = { &wl_seat_interface, &virtual_pointer_interface };
static const struct wl_message manager_requests[] = {
    { "create_virtual_pointer", "?on", create_types },
    { "destroy", "", NULL },
};
static const struct wl_interface manager_interface = {
    "zwlr_virtual_pointer_manager_v1", 1, 2, manager_requests, 0, NULL,
};
static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL, NULL };
static const struct wl_message pointer_requests[] = {
    { "motion", "uff", no_types },
    { "motion_absolute", "uuuuu", no_types },
    { "button", "uuu", no_types },
    { "axis", "uuf", no_types },
    { "frame", "", no_types },
    { "axis_source", "u", no_types },
    { "axis_stop", "uu", no_types },
    { "axis_discrete", "uufi", no_types },
    { "destroy", "", no_types },
};
static const struct wl_interface virtual_pointer_interface = {
    "zwlr_virtual_pointer_v1", 1, 9, pointer_requests, 0, NULL,
};
enum { MOTION_ABSOLUTE = 1, BUTTON = 2, FRAME = 4, DESTROY = 8 };
enum { BTN_LEFT = 0x110 };

static struct wl_seat *seat;
static struct wl_proxy *manager;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data; (void)version;
    if (strcmp(interface, "wl_seat") == 0 && !seat)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, manager_interface.name) == 0)
        manager = wl_registry_bind(registry, name, &manager_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static uint32_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint32_t)(t.tv_sec * 1000 + t.tv_nsec / 1000000);
}
static void pause_ms(long ms) { usleep((useconds_t)ms * 1000); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: virtual_pointer WIDTH HEIGHT STEP...\n"); return 2; }
    uint32_t width = (uint32_t)atoi(argv[1]), height = (uint32_t)atoi(argv[2]);
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "virtual_pointer: no Wayland display\n"); return 1; }
    wl_registry_add_listener(wl_display_get_registry(display), &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!manager || !seat) { fprintf(stderr, "virtual_pointer: no zwlr_virtual_pointer_manager_v1\n"); return 1; }
    struct wl_proxy *pointer = wl_proxy_marshal_flags(manager, 0, &virtual_pointer_interface, 1, 0, seat, NULL);
    wl_display_roundtrip(display);
    pause_ms(300);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "move") == 0 && i + 2 < argc) {
            uint32_t x = (uint32_t)atoi(argv[i + 1]), y = (uint32_t)atoi(argv[i + 2]);
            i += 2;
            wl_proxy_marshal_flags(pointer, MOTION_ABSOLUTE, NULL, 1, 0, now_ms(), x, y, width, height);
        } else if (strcmp(argv[i], "press") == 0 || strcmp(argv[i], "release") == 0) {
            wl_proxy_marshal_flags(pointer, BUTTON, NULL, 1, 0, now_ms(), BTN_LEFT, strcmp(argv[i], "press") == 0 ? 1 : 0);
        } else if (strcmp(argv[i], "wait") == 0 && i + 1 < argc) {
            pause_ms(atol(argv[++i]));
            continue;
        } else {
            fprintf(stderr, "virtual_pointer: unknown step %s\n", argv[i]);
            return 2;
        }
        wl_proxy_marshal_flags(pointer, FRAME, NULL, 1, 0);
        wl_display_flush(display);
        pause_ms(15);
    }
    wl_display_roundtrip(display);
    pause_ms(300);
    wl_proxy_marshal_flags(pointer, DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}
