// swift-tools-version: 6.0
// PinGate — PIN and pattern authentication for Linux through PAM.
// Layout and names follow docs/design.md; the PAM module itself is C (pam/), built by
// pam/Makefile, because SwiftPM would link the Swift runtime into it.
import PackageDescription
#if canImport(Glibc)
import Glibc
#endif

// The executables bind every symbol at start and then make the relocation
// table read-only (full RELRO, as the PAM module is built): a setgid helper
// and a lock screen leave no writable GOT to aim at. They are PIE by default.
// Linked by the toolchain's lld, which packs their ~16,600 relative
// relocations into a 3 KB DT_RELR table (glibc 2.36 reads it) instead of a
// 400 KB RELA one that ld.so would read at every start; gold cannot.
let fullRELRO: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now",
                                                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])]

// The helper runs twice per sign-in, so its start counts: libstdc++ and its
// unwinder are linked in from the static archives instead of loaded and bound
// at every start (packaging/link/libstdc++.so says how and what it saves).
// Only the release build's -static-stdlib link names -lstdc++.
let staticCXX: [LinkerSetting] = [.unsafeFlags(["-L", Context.packageDirectory + "/packaging/link"])]

// libsodium is named per product, not by CSodium's module map. Every
// executable takes the static archive (-l:libsodium.a): the helper's starts
// are spared a mapping and ~190 symbol bindings (about 0.09 ms), and no
// package depends on a soname only some releases have (Debian 12 and 13 ship
// libsodium.so.23, Debian 14 libsodium.so.26). The tests load the shared
// library. The .deb records the archive's version in Built-Using.
let sharedSodium: [LinkerSetting] = [.linkedLibrary("sodium")]
let staticSodium: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-l:libsodium.a"])]

// pingate-lock's headers (pango, cairo, harfbuzz, glib, freetype) are where
// pkg-config says: each release moves them (Debian 12's cairo brought glib's,
// Debian 13's does not), and a cross build's glibconfig.h is the target's
// (PKG_CONFIG_LIBDIR). Asked here rather than through a system library's
// `pkgConfig:`, because SwiftPM reads pango's private requirements too and
// warns of gio's "-pthread", a flag it refuses; only the -I flags are taken.
// Without pkg-config, none: the build then names the missing header.
func pkgConfigIncludes(_ module: String) -> [String] {
    guard let pipe = popen("pkg-config --cflags-only-I '\(module)' 2>/dev/null", "r") else { return [] }
    var bytes: [UInt8] = []
    while case let byte = fgetc(pipe), byte != EOF { bytes.append(UInt8(byte)) }
    guard pclose(pipe) == 0 else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).flatMap { ["-Xcc", String($0)] }
}

// Swift 6.0.3 (Debian 13's swiftlang, which builds the arm64 packages:
// packaging/cross.sh) crashes in its release build's CopyPropagation pass
// ("All discovered blocks must be live", PrunedLiveness) on two functions
// that consume noncopyable values, HelperMain.parse and
// CredentialDialog.askNew; the pass is off for those two targets there only.
#if compiler(<6.1)
let swift60Workaround: [SwiftSetting] = [.unsafeFlags(["-Xllvm", "-sil-disable-pass=copy-propagation"],
                                                      .when(configuration: .release))]
#else
let swift60Workaround: [SwiftSetting] = []
#endif

// pingate-lock on Wayland: the ext-session-lock-v1 code that wayland-scanner
// generates at build time comes from a package of its own (its manifest
// says why); SwiftPM generates C from a plugin from 6.3 on. Older compilers
// (Debian 13's 6.0.3, the arm64 build) build pingate-lock for X11 only; it
// then refuses to lock a Wayland session, saying why.
#if compiler(>=6.3)
let waylandPackages: [Package.Dependency] = [.package(path: "Packages/WaylandProtocols")]
let waylandModules: [Target.Dependency] = [.product(name: "CWaylandProtocols", package: "WaylandProtocols"), "CXKBCommon"]
#else
let waylandPackages: [Package.Dependency] = []
let waylandModules: [Target.Dependency] = []
#endif

let package = Package(
    name: "PinGate",
    products: [
        .library(name: "PinGateCore", targets: ["PinGateCore"]),
        .executable(name: "pingate", targets: ["pingate"]),
        .executable(name: "pingate-verify", targets: ["pingate-verify"]),
        .executable(name: "pingate-lock", targets: ["pingate-lock"]),
    ],
    dependencies: waylandPackages,
    targets: [
        // Headers only (sodium.h is on the default path): each product names
        // the library itself (sharedSodium, staticSodium above).
        .systemLibrary(
            name: "CSodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // Header-only shims for the few variadic or shadowed system calls.
        .systemLibrary(name: "CPinGateSystem"),
        // The module's contract headers (pam/pingate_protocol.h, pingate_install.h),
        // imported as they are: the helper protocol and install facts have one copy.
        .systemLibrary(name: "CPinGateContract"),
        // gettext and wcwidth for the CLI's translations (po/).
        .systemLibrary(name: "CLocalization"),
        // pingate-lock: Xlib + RandR, cairo + pango, libpam (the UI runs PAM as the user).
        .systemLibrary(name: "CX11", providers: [.apt(["libx11-dev", "libxrandr-dev"])]),
        // Header paths: pkgConfigIncludes("pangocairo") in pingate-lock's settings.
        .systemLibrary(
            name: "CCairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev", "pkg-config"])]
        ),
        .systemLibrary(name: "CPAM", providers: [.apt(["libpam0g-dev"])]),
        // pingate-lock on Wayland: the compositor's keymap and compose tables.
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        .target(
            name: "PinGateCore",
            dependencies: ["CSodium", "CPinGateSystem", "CPinGateContract"]
        ),
        // argv for the helper, so the static runtime's /proc/self/maps scan
        // is not linked in (argv.c says why).
        .target(name: "CPinGateArgv"),
        .executableTarget(
            name: "pingate-verify",
            dependencies: ["PinGateCore", "CPinGateSystem", "CPinGateArgv"],
            swiftSettings: swift60Workaround,
            linkerSettings: fullRELRO + staticCXX + staticSodium + [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),
        // gettext for the words people read, and the printf subset that fills
        // them: shared by the CLI and the lock screen.
        .target(
            name: "PinGateText",
            dependencies: ["CLocalization"]
        ),
        // The admin CLI's commands, argument parsing and terminal pads, as a
        // library so that they have unit tests; `pingate` only calls it.
        // Sealing the machine key with a TPM 2.0 (tpm2-tss: ESAPI, the TCTI
        // loader, marshalling, response-code text). A C target because ESAPI's
        // unions of fixed arrays and cast-macro constants do not import into
        // Swift; PinGateTPM is its typed Swift face. Only the CLI depends on
        // them: the setgid helper never links tpm2-tss (tpm_test.sh checks).
        .target(
            name: "CPinGateTPM",
            linkerSettings: [.linkedLibrary("tss2-esys"), .linkedLibrary("tss2-tctildr"),
                             .linkedLibrary("tss2-mu"), .linkedLibrary("tss2-rc")]
        ),
        .target(
            name: "PinGateTPM",
            dependencies: ["CPinGateTPM", "PinGateCore"]
        ),
        .target(
            name: "PinGateCLI",
            dependencies: ["PinGateCore", "PinGateText", "PinGateTPM", "CLocalization", "CPinGateContract"],
            swiftSettings: swift60Workaround
        ),
        .executableTarget(
            name: "pingate",
            dependencies: ["PinGateCLI"],
            linkerSettings: fullRELRO + staticSodium
        ),
        // The lock screen's state machines (PIN pad, pattern path, password field),
        // pure Swift so they are tested without an X server.
        .target(
            name: "PinGateLock",
            dependencies: ["PinGateCore"]
        ),
        .executableTarget(
            name: "pingate-lock",
            dependencies: ["PinGateLock", "PinGateText", "CX11", "CCairo", "CPAM", "CLocalization", "CPinGateSystem",
                           "CPinGateContract"] + waylandModules,
            swiftSettings: [.unsafeFlags(pkgConfigIncludes("pangocairo"))],
            linkerSettings: fullRELRO + staticSodium
        ),
        .testTarget(
            name: "PinGateCoreTests",
            dependencies: ["PinGateCore"],
            linkerSettings: sharedSodium
        ),
        .testTarget(
            name: "PinGateLockTests",
            dependencies: ["PinGateLock"],
            linkerSettings: sharedSodium
        ),
        .testTarget(
            name: "PinGateCLITests",
            dependencies: ["PinGateCLI", "PinGateCore", "PinGateText"],
            linkerSettings: sharedSodium
        ),
    ],
    swiftLanguageModes: [.v6]
)
