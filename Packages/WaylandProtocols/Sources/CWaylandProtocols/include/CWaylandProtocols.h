/* libwayland-client (the core protocol: wl_display, wl_seat, wl_shm, ...) and
 * the protocols wayland-scanner generated from wayland-protocols at build time
 * (Plugins/WaylandScanner). */
#include <wayland-client.h>
#include "ext-session-lock-v1.h"
#include "fractional-scale-v1.h"
#include "viewporter.h"

/* The interface descriptions are C globals that wl_registry_bind and the
 * proxies keep pointers to; Swift would pass a copy's address. */
static inline const struct wl_interface *cwayland_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *cwayland_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *cwayland_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *cwayland_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *cwayland_session_lock_manager_interface(void) {
    return &ext_session_lock_manager_v1_interface;
}
static inline const struct wl_interface *cwayland_fractional_scale_manager_interface(void) {
    return &wp_fractional_scale_manager_v1_interface;
}
static inline const struct wl_interface *cwayland_viewporter_interface(void) { return &wp_viewporter_interface; }
