/*
 * What the CLI needs for translation that Swift's Glibc overlay does not
 * bring: gettext (libintl.h is not in the overlay) and wcwidth (declared by
 * wchar.h only under _XOPEN_SOURCE, which the overlay was not built with).
 */
#ifndef CLOCALIZATION_SHIM_H
#define CLOCALIZATION_SHIM_H
#include <libintl.h>
#include <wchar.h>

/* Columns a character takes on a terminal: 2 for CJK, 0 for combining marks, -1 for controls. */
static inline int clocalization_wcwidth(wchar_t c) {
    extern int wcwidth(wchar_t);
    return wcwidth(c);
}
#endif
