/*
 * pingate_install.h — where PinGate's parts live on an installed system.
 *
 * The one copy of these facts: the module includes this header, Swift
 * imports it (Sources/CPinGateContract: HelperClient, pingate doctor), and
 * pam/Makefile and packaging/layout.sh read it with `cc -E -dM` (so the
 * installers, the .deb and postinst take the same values).
 */
#ifndef PINGATE_INSTALL_H
#define PINGATE_INSTALL_H

/* The setgid helper: root:PINGATE_GROUP, mode PINGATE_HELPER_MODE. */
#define PINGATE_HELPER_PATH "/usr/libexec/pingate/pingate-verify"
#define PINGATE_HELPER_MODE 02755
#define PINGATE_GROUP "pingate"

/*
 * The verifier's socket (pingate-verify.socket, pingate_protocol.h SOCKET):
 * not under /run/pingate, the loaded key's ramfs, which `pingate key load`
 * mounts over and which no caller may reach.
 */
#define PINGATE_VERIFY_SOCKET "/run/pingate-verify/socket"
/* The store, which the module checks is writable before it spawns the helper. */
#define PINGATE_STORE_DIR "/var/lib/pingate"

/*
 * Debian's multiarch triplet of the architecture being compiled for: the
 * module goes to /usr/lib/PINGATE_MULTIARCH/security. Decided by the compiler's
 * own target macros, so the doctor (built by swiftc, whose C importer sees
 * the same macros) and the Makefile (cc) agree without dpkg-architecture,
 * which an installed system need not have.
 */
#if defined(__x86_64__) && defined(__ILP32__)
#define PINGATE_MULTIARCH "x86_64-linux-gnux32"
#elif defined(__x86_64__)
#define PINGATE_MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define PINGATE_MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define PINGATE_MULTIARCH "i386-linux-gnu"
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
#define PINGATE_MULTIARCH "arm-linux-gnueabihf"
#elif defined(__arm__)
#define PINGATE_MULTIARCH "arm-linux-gnueabi"
#elif defined(__riscv) && __riscv_xlen == 64
#define PINGATE_MULTIARCH "riscv64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PINGATE_MULTIARCH "powerpc64le-linux-gnu"
#elif defined(__s390x__)
#define PINGATE_MULTIARCH "s390x-linux-gnu"
#elif defined(__mips64) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PINGATE_MULTIARCH "mips64el-linux-gnuabi64"
#else
#error "pingate_install.h: add this architecture's Debian multiarch triplet"
#endif

#endif
