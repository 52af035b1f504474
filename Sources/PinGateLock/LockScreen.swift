import PinGateCore

/// The lock screen's state, apart from pixels (as i3lock's unlock indicator):
/// which way in is offered, what has been entered, and what an input event
/// does to it. The UI process draws from this and runs PAM on a submission.
public struct LockScreen {
    public enum Mode: Equatable, Sendable { case pin, pattern, password }

    /// A finished entry to check: the entry's own `Secret`, handed over (a
    /// PIN's digits and a password's bytes as typed, a pattern as its text).
    /// It cannot be copied; whoever checks it consumes it, and it is wiped
    /// when that one is done.
    public enum Submission: ~Copyable {
        case pin(Secret)
        case pattern(Secret)
        case password(Secret)

        /// Hands the secret on.
        public consuming func secret() -> Secret {
            switch consume self {
            case let .pin(secret): return secret
            case let .pattern(secret): return secret
            case let .password(secret): return secret
            }
        }
    }

    /// What an input event did. Not copyable, since a submission is in it.
    public enum Reaction: ~Copyable {
        case nothing
        case redraw
        case submit(Submission)
    }

    public private(set) var mode: Mode
    public private(set) var pin: PINEntry?
    public private(set) var pattern: PatternEntry?
    public private(set) var password = PasswordEntry()
    /// Where the pointer is while a pattern is traced (the line follows it).
    public private(set) var pointer: Point?
    /// False while the PIN or pattern is locked, disabled or unavailable.
    public private(set) var credentialUsable = false
    /// The password is up because the PIN or pattern could not be used, not
    /// because the person chose it: when it can be used again, it comes back.
    private var passwordForced = false
    public var layout: DialogLayout

    public init(offer: CredentialOffer, layout: DialogLayout) {
        self.layout = layout
        mode = .password
        update(offer: offer)
        showCredential()
    }

    /// Shows what `offer` allows: the PIN or pattern when usable (keeping the
    /// current choice of the password if the person made it, and a password
    /// they are typing), else the password.
    public mutating func update(offer: CredentialOffer) {
        switch offer {
        case let .pin(length, _):
            if pin == nil || pin?.knownLength != length { pin = PINEntry(length: length) }
            pattern = nil
            credentialUsable = true
            if mode == .pattern { mode = .pin }
        case let .pattern(gridSize, _):
            if pattern?.grid.size != gridSize, let grid = try? PatternGrid(size: gridSize) {
                pattern = PatternEntry(grid: grid)
            }
            pin = nil
            credentialUsable = pattern != nil
            if mode == .pin { mode = .pattern }
        case .locked, .disabled, .notEnrolled, .notOffered, .unavailable:
            credentialUsable = false
            mode = .password
            passwordForced = true
        }
        // Usable again after a forced password: the credential comes back
        // (switchTo ends the forcing), unless a password is being typed.
        if credentialUsable && passwordForced && password.characterCount == 0 { showCredential() }
    }

    /// The credential's own mode, for the first screen and the switch button.
    public var credentialMode: Mode? {
        guard credentialUsable else { return nil }
        return pin != nil ? .pin : (pattern != nil ? .pattern : nil)
    }

    public mutating func showCredential() {
        if let credentialMode { switchTo(credentialMode) }
    }

    public mutating func switchTo(_ newMode: Mode) {
        guard newMode != mode else { return }
        guard newMode == .password || newMode == credentialMode else { return }
        passwordForced = false
        clearEntries()
        mode = newMode
    }

    public mutating func clearEntries() {
        pin?.clear()
        pattern?.clear()
        password.clear()
        pointer = nil
    }

    public mutating func handle(_ event: InputEvent) -> Reaction {
        switch event {
        case let .key(keysym, character):
            return handleKey(keysym, character)
        case let .press(button, x, y):
            guard button == 1 else { return .nothing }
            return handlePress(Point(x: Double(x), y: Double(y)))
        case let .motion(x, y):
            return handleMotion(Point(x: Double(x), y: Double(y)))
        case let .release(button, _, _):
            guard button == 1, mode == .pattern, pattern?.isTracing == true else { return .nothing }
            pointer = nil
            guard let text = pattern?.finish() else { return .redraw }
            return .submit(.pattern(text))
        case .cancel:
            // As Android's pattern view on a cancelled gesture: what was
            // drawn is dropped. A lift would submit it, and count a wrong
            // pattern the person never finished.
            guard mode == .pattern, pattern?.isTracing == true else { return .nothing }
            pointer = nil
            pattern?.clear()
            return .redraw
        }
    }

    private mutating func handleKey(_ keysym: UInt32, _ character: Unicode.Scalar?) -> Reaction {
        if keysym == Keysym.tab || keysym == Keysym.isoLeftTab {
            guard let credentialMode else { return .nothing }
            switchTo(mode == .password ? credentialMode : .password)
            return .redraw
        }
        switch mode {
        case .pin: return pinKey(keysym)
        case .pattern: return patternKey(keysym)
        case .password: return passwordKey(keysym, character)
        }
    }

    private mutating func pinKey(_ keysym: UInt32) -> Reaction {
        if let digit = Keysym.rowDigit(keysym) ?? Keysym.keypadDigit(keysym) {
            return typeDigit(digit)
        }
        switch keysym {
        case Keysym.backSpace: pin?.backspace()
        case Keysym.escape: pin?.clear()
        case Keysym.return, Keysym.keypadEnter:
            guard let typed = pin?.submit() else { return .nothing }
            return .submit(.pin(typed))
        default: return .nothing
        }
        return .redraw
    }

    private mutating func typeDigit(_ digit: Int) -> Reaction {
        guard let typed = pin?.type(digit) else { return .redraw }
        return .submit(.pin(typed))
    }

    private mutating func patternKey(_ keysym: UInt32) -> Reaction {
        guard let grid = pattern?.grid else { return .nothing }
        if grid.size == 3 {
            if let digit = Keysym.keypadDigit(keysym), let cell = PatternEntry.cellForKeypadDigit(digit) {
                pattern?.join(cell)
                return .redraw
            }
            if let digit = Keysym.rowDigit(keysym), digit >= 1 {
                pattern?.join(digit)  // the digit keys name cells by number, as the legend does
                return .redraw
            }
        }
        switch keysym {
        case Keysym.left: pattern?.moveCursor(rows: 0, columns: -1)
        case Keysym.right: pattern?.moveCursor(rows: 0, columns: 1)
        case Keysym.up: pattern?.moveCursor(rows: -1, columns: 0)
        case Keysym.down: pattern?.moveCursor(rows: 1, columns: 0)
        case Keysym.space, Keysym.keypadSpace: if let cursor = pattern?.cursor { pattern?.join(cursor) }
        case Keysym.backSpace: pattern?.removeLast()
        case Keysym.escape: pattern?.clear()
        case _ where Keysym.isSubmit(keysym):
            guard let text = pattern?.take() else { return .nothing }
            return .submit(.pattern(text))
        default: return .nothing
        }
        return .redraw
    }

    private mutating func passwordKey(_ keysym: UInt32, _ character: Unicode.Scalar?) -> Reaction {
        switch keysym {
        case _ where Keysym.isSubmit(keysym):
            guard password.characterCount > 0 else { return .nothing }
            return .submit(.password(password.take()))
        case Keysym.backSpace: password.backspace()
        case Keysym.escape: password.clear()
        default:
            guard let character else { return .nothing }
            password.type(character)
        }
        return .redraw
    }

    private mutating func handlePress(_ point: Point) -> Reaction {
        if layout.switchButton.contains(point) {
            if mode == .password {
                guard let credentialMode else { return .nothing }
                switchTo(credentialMode)
            } else {
                switchTo(.password)
            }
            return .redraw
        }
        switch mode {
        case .pin:
            switch layout.padKey(at: point) {
            case let .digit(digit)?: return typeDigit(digit)
            case .backspace?: pin?.backspace()
            case .clear?: pin?.clear()
            case nil: return .nothing
            }
            return .redraw
        case .pattern:
            guard let cell = layout.cell(at: point) else { return .nothing }
            pattern?.begin(at: cell)
            pointer = point
            return .redraw
        case .password:
            return .nothing
        }
    }

    private mutating func handleMotion(_ point: Point) -> Reaction {
        guard mode == .pattern, pattern?.isTracing == true else { return .nothing }
        pointer = point
        if let cell = layout.cell(at: point) { pattern?.join(cell) }
        return .redraw
    }
}
