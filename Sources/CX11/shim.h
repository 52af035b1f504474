/* Xlib and RandR for pingate-lock's cover and dialog windows (apt: libx11-dev, libxrandr-dev). */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xresource.h>
#include <X11/keysym.h>
#include <X11/cursorfont.h>
#include <X11/extensions/Xrandr.h>

/* XCreateIC is variadic, which Swift cannot call: an input context with no
 * preedit or status window of its own, for Xutf8LookupString. */
static inline XIC pingate_create_ic(XIM im, Window window) {
    return XCreateIC(im, XNInputStyle, XIMPreeditNothing | XIMStatusNothing,
                     XNClientWindow, window, XNFocusWindow, window, (char *)NULL);
}
