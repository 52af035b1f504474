// pingate — the admin CLI of PinGate. The commands live in PinGateCLI (see
// RootCommand); pingate(8) documents the exit statuses and the --json schemas.
import Glibc
import PinGateCLI

Localization.start()
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())).rawValue)
