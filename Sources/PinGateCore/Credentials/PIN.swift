/// A well-formed PIN: ASCII digits, length within the policy's bounds.
/// `~Copyable`, as the `Secret` that holds its digits.
public struct PIN: ~Copyable, Sendable {
    /// The digits as ASCII bytes ("0"…"9").
    public let digits: Secret

    public var length: Int { digits.count }

    /// The lengths any policy may allow (pin_min_length, pin_max_length), and
    /// so the only lengths a record may store.
    public static let lengthLimits = 4...12

    /// Parses typed input. Surrounding whitespace is ignored; anything else
    /// that is not a digit, or a length outside `minimumLength...maximumLength`,
    /// is a `CredentialError`.
    public init(parsing input: borrowing Secret, minimumLength: Int, maximumLength: Int) throws {
        let trimmed = input.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw CredentialError.empty }
        for index in 0..<trimmed.count where !(0x30...0x39).contains(trimmed[index]) {
            throw CredentialError.pinHasNonDigit
        }
        guard trimmed.count >= minimumLength, trimmed.count <= maximumLength else {
            throw CredentialError.pinLength(minimum: minimumLength, maximum: maximumLength, got: trimmed.count)
        }
        digits = trimmed
    }

    public init(parsing input: borrowing Secret, policy: Policy) throws {
        try self.init(parsing: input, minimumLength: policy.pinMinLength, maximumLength: policy.pinMaxLength)
    }
}
