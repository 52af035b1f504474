/* The target's own sources: none. The protocol code is generated
 * (Plugins/WaylandScanner); SwiftPM wants one file to call the target C. */
