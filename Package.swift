// swift-tools-version: 6.0
// PinGate — PIN and pattern authentication for Linux through PAM.
// Layout and names follow DESIGN.md; the PAM module itself is C (pam/), built by
// pam/Makefile, because SwiftPM would link the Swift runtime into it.
import PackageDescription

let package = Package(
    name: "PinGate",
    products: [
        .library(name: "PinGateCore", targets: ["PinGateCore"]),
        .executable(name: "pingate", targets: ["pingate"]),
        .executable(name: "pingate-verify", targets: ["pingate-verify"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // Header-only shims for the few variadic or shadowed system calls.
        .systemLibrary(name: "CPinGateSystem"),
        // gettext and wcwidth for the CLI's translations (po/).
        .systemLibrary(name: "CLocalization"),
        .target(
            name: "PinGateCore",
            dependencies: ["CSodium", "CPinGateSystem"]
        ),
        .executableTarget(
            name: "pingate-verify",
            dependencies: ["PinGateCore", "CPinGateSystem"]
        ),
        // The admin CLI's commands, argument parsing and terminal pads, as a
        // library so that they have unit tests; `pingate` only calls it.
        .target(
            name: "PinGateCLI",
            dependencies: ["PinGateCore", "CLocalization"]
        ),
        .executableTarget(
            name: "pingate",
            dependencies: ["PinGateCLI"]
        ),
        .testTarget(
            name: "PinGateCoreTests",
            dependencies: ["PinGateCore"]
        ),
        .testTarget(
            name: "PinGateCLITests",
            dependencies: ["PinGateCLI", "PinGateCore"]
        ),
    ],
    swiftLanguageModes: [.v5]
)
