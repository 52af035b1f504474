/* cairo on an Xlib window and pango for text (CJK through fontconfig); apt: libpango1.0-dev libcairo2-dev. */
#include <cairo/cairo-xlib.h>
#include <pango/pangocairo.h>
