/// Auth0's password strength levels for the user database, applied wherever a password is chosen:
/// signup, reset, `idp-admin users create` and `users set-password` (README "Passwords").
///
/// | level       | rules                                                                          |
/// |-------------|--------------------------------------------------------------------------------|
/// | `none`      | at least 1 character                                                           |
/// | `low`       | at least 6 characters                                                          |
/// | `fair`      | at least 8 characters, a lower-case letter, an upper-case letter and a digit   |
/// | `good`      | at least 8 characters and 3 of: lower case, upper case, digit, special         |
/// | `excellent` | at least 10 characters, 3 of the 4 kinds, no character 3 times in a row        |
public enum PasswordPolicy: String, Sendable, CaseIterable {
    case none, low, fair, good, excellent

    /// Longer passwords are refused outright: a passphrase needs no more, and a bound keeps the
    /// hash's input small.
    public static let maximumLength = 128

    /// One rule a password can miss, with the text people and SDKs see.
    public enum Rule: Sendable, Equatable {
        case lengthAtLeast(Int)
        case lengthAtMost(Int)
        case lowerCase, upperCase, digit
        case threeOfFourKinds
        case noThreeIdenticalInARow

        public var message: String {
            switch self {
            case .lengthAtLeast(let count): "at least \(count) characters"
            case .lengthAtMost(let count): "at most \(count) characters"
            case .lowerCase: "a lower-case letter (a-z)"
            case .upperCase: "an upper-case letter (A-Z)"
            case .digit: "a digit (0-9)"
            case .threeOfFourKinds: "3 of these 4: lower-case letters, upper-case letters, digits, special characters (e.g. !@#$%^&*)"
            case .noThreeIdenticalInARow: "no more than 2 identical characters in a row"
            }
        }
    }

    /// The rules `password` misses, in the order the table lists them; empty when it passes.
    public func unmetRules(_ password: String) -> [Rule] {
        let count = password.count
        let kinds = CharacterKinds(password)
        var unmet: [Rule] = []
        if count > Self.maximumLength { unmet.append(.lengthAtMost(Self.maximumLength)) }
        switch self {
        case .none:
            if count < 1 { unmet.append(.lengthAtLeast(1)) }
        case .low:
            if count < 6 { unmet.append(.lengthAtLeast(6)) }
        case .fair:
            if count < 8 { unmet.append(.lengthAtLeast(8)) }
            if !kinds.lower { unmet.append(.lowerCase) }
            if !kinds.upper { unmet.append(.upperCase) }
            if !kinds.digit { unmet.append(.digit) }
        case .good:
            if count < 8 { unmet.append(.lengthAtLeast(8)) }
            if kinds.count < 3 { unmet.append(.threeOfFourKinds) }
        case .excellent:
            if count < 10 { unmet.append(.lengthAtLeast(10)) }
            if kinds.count < 3 { unmet.append(.threeOfFourKinds) }
            if Self.hasThreeIdenticalInARow(password) { unmet.append(.noThreeIdenticalInARow) }
        }
        return unmet
    }

    /// The description of a refusal: "Password is too weak. It needs at least 8 characters; a digit (0-9)."
    public static func describe(_ unmet: [Rule]) -> String {
        "Password is too weak. It needs " + unmet.map(\.message).joined(separator: "; ") + "."
    }

    private static func hasThreeIdenticalInARow(_ password: String) -> Bool {
        var previous: Character?
        var run = 0
        for character in password {
            run = character == previous ? run + 1 : 1
            if run >= 3 { return true }
            previous = character
        }
        return false
    }
}

/// Which kinds of characters a password has. Letters outside ASCII count by their case when they
/// have one (`É`, `ß`); anything else that is not a letter or digit is special (kana included).
struct CharacterKinds {
    var lower = false, upper = false, digit = false, special = false

    init(_ password: String) {
        for character in password {
            if character.isLowercase { lower = true }
            else if character.isUppercase { upper = true }
            else if character.isASCII && character.isNumber { digit = true }
            else { special = true }
        }
    }

    var count: Int { [lower, upper, digit, special].filter { $0 }.count }
}
