import Foundation
import PackagePlugin

/// Runs wayland-scanner (apt: libwayland-bin, which libwayland-dev brings) on
/// each protocol the lock screen speaks, from wayland-protocols' XML: the
/// interface tables as C (private-code) and the client's inline request and
/// listener functions as a header (client-header) in "include", where SwiftPM
/// puts a generating plugin's public headers. One command writes both, so
/// the header exists whenever the code it belongs to is built.
@main
struct WaylandScanner: BuildToolPlugin {
    /// Protocol files, relative to wayland-protocols' data directory: the
    /// lock itself, and the two that draw a lock surface at a fractional
    /// scale (both in Debian 12's and 13's wayland-protocols).
    static let protocols = ["staging/ext-session-lock/ext-session-lock-v1.xml",
                            "staging/fractional-scale/fractional-scale-v1.xml",
                            "stable/viewporter/viewporter.xml"]
    static let dataDirectory = "/usr/share/wayland-protocols"
    static let scanner = "/usr/bin/wayland-scanner"

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL
        return Self.protocols.map { relative in
            let xml = URL(fileURLWithPath: Self.dataDirectory).appending(path: relative)
            let name = xml.deletingPathExtension().lastPathComponent
            let code = output.appending(path: name + ".c")
            let header = output.appending(path: "include/" + name + ".h")
            let script = #"mkdir -p "${3%/*}" && "$0" private-code "$1" "$2" && "$0" client-header "$1" "$3""#
            return .buildCommand(displayName: "wayland-scanner \(name)",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: ["-c", script, Self.scanner, xml.path, code.path, header.path],
                                 inputFiles: [xml], outputFiles: [code, header])
        }
    }
}
