import Glibc

/// getenv(3): the value of the environment variable `name`, nil if unset.
/// Only for the CLI's own choices (TERM); privileged code reads no variable.
public func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
