// SPDX-License-Identifier: Apache-2.0
// The Swift runtime's argv entry points, which argv.c defines for the helper
// (argv.c says why).
#ifndef PINGATE_ARGV_H
#define PINGATE_ARGV_H

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

#endif
