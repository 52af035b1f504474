// pingate — the admin CLI of PinGate. See RootCommand for the commands and
// pingate(8) for the exit statuses and the --json schemas.
import Glibc

Localization.start()
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())).rawValue)
