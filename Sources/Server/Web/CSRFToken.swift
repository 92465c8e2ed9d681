import Crypto

/// Login CSRF protection (G01): a random token in the form, its SHA-256 in the login transaction.
enum CSRFToken {
    /// A fresh token for the page and the hash to store server-side.
    static func make() -> (token: String, hash: String) {
        let token = Random.token()
        return (token, hash(token))
    }

    /// Lower-case hex SHA-256 of the token's UTF-8.
    static func hash(_ token: String) -> String {
        Digest.sha256Hex(Array(token.utf8))
    }

    /// Whether the posted `token` is the one whose hash was stored; nil, empty or overlong tokens never match.
    static func matches(_ token: String?, hash stored: String) -> Bool {
        guard let token, !token.isEmpty, token.utf8.count <= 512, !stored.isEmpty else { return false }
        return ConstantTime.equals(Array(hash(token).utf8), Array(stored.utf8))
    }
}
