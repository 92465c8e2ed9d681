import Crypto

/// Login CSRF protection (negative-tests G01): a random token in the form, its SHA-256 in the login transaction.
public enum CSRFToken {
    /// A fresh token for the page and the hash to store server-side.
    public static func make(random: any RandomSource = SystemRandom()) -> (token: String, hash: String) {
        let token = random.token(bytes: 32)
        return (token, hash(token))
    }

    /// Lower-case hex SHA-256 of the token's UTF-8.
    public static func hash(_ token: String) -> String {
        Digest.sha256Hex(Array(token.utf8))
    }

    /// Whether the posted `token` is the one whose hash was stored; nil, empty or overlong tokens never match.
    public static func matches(_ token: String?, hash stored: String) -> Bool {
        guard let token, !token.isEmpty, token.utf8.count <= 512, !stored.isEmpty else { return false }
        return ConstantTime.equals(Array(hash(token).utf8), Array(stored.utf8))
    }
}
