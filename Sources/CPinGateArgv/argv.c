// SPDX-License-Identifier: Apache-2.0
// argv for the helper's CommandLine, without reading /proc/self/maps.
//
// The static Swift standard library finds argv on Linux with a constructor
// (its CommandLine.cpp) that opens /proc/self/maps and scans every mapping
// with sscanf, at every start of every program linked with it: about
// 110,000 instructions and a file the kernel formats, a fourteenth of the
// helper's status run. glibc already hands argv to each constructor of the
// executable, so this file keeps it from there and defines the two entry
// points of that part of the runtime; the linker then takes them from here
// and never pulls the runtime's copy (and its constructor) out of
// libswiftCore.a. Only pingate-verify links this target: its start is paid
// at every sign-in (docs/design.md, section 2). It matters only with
// --static-swift-stdlib (the release build): a debug helper loads
// libswiftCore.so, which keeps its own argv finder and uses it.
#include "pingate_argv.h"
static int saved_argc;
static char **saved_argv;

static void keep_argv(int argc, char **argv, char **envp)
{
	(void)envp;
	saved_argc = argc;
	saved_argv = argv;
}

// glibc calls the executable's .init_array entries with (argc, argv, envp).
__attribute__((section(".init_array"), used))
static void (*const keep_argv_entry)(int, char **, char **) = keep_argv;

// The runtime's two entry points, as the standard library calls them.
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen)
{
	static char *empty[] = { 0 };
	if (saved_argv == 0) {
		*outArgLen = 0;
		return empty;
	}
	*outArgLen = saved_argc;
	return saved_argv;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc)
{
	saved_argv = argv;
	saved_argc = argc;
}
