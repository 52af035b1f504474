// pingate — the admin CLI of PinGate. See RootCommand for the commands and
// pingate(8) for the exit statuses and the --json schemas.
import Glibc

exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())).rawValue)
