/* xkbcommon for pingate-lock on Wayland: the compositor's keymap, and compose
 * tables for dead keys (apt: libxkbcommon-dev). */
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
