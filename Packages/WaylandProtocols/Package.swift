// swift-tools-version: 6.3;(experimentalCGen)
// The Wayland protocol bindings pingate-lock needs beyond the core protocol
// (which libwayland-client carries): C generated at build time by
// wayland-scanner from the XML files Debian's wayland-protocols ships, never
// written by hand. A package of its own because generating C from a build
// tool plugin is, in SwiftPM 6.3, an experimental feature that a manifest
// turns on with its tools-version line; the root manifest stays at 6.0 for
// Debian 13's Swift 6.0.3 (packaging/cross.sh), which builds without it.
import PackageDescription

let package = Package(
    name: "WaylandProtocols",
    products: [
        .library(name: "CWaylandProtocols", targets: ["CWaylandProtocols"]),
    ],
    targets: [
        .plugin(name: "WaylandScanner", capability: .buildTool()),
        // libwayland-client's headers and library (apt: libwayland-dev), and
        // the generated code and headers of ext-session-lock-v1,
        // fractional-scale-v1 and viewporter.
        .target(
            name: "CWaylandProtocols",
            linkerSettings: [.linkedLibrary("wayland-client")],
            plugins: ["WaylandScanner"]
        ),
    ]
)
