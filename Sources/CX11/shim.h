/* Xlib and RandR for pingate-lock's cover and dialog windows (apt: libx11-dev, libxrandr-dev). */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xresource.h>
#include <X11/keysym.h>
#include <X11/cursorfont.h>
#include <X11/extensions/Xrandr.h>
