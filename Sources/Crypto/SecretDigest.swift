/// Storage form of high-entropy secrets we generate (client secrets, codes, refresh tokens,
/// session cookies): lowercase hex SHA-256, compared in constant time.
///
/// A slow password hash adds nothing for 256-bit random values and would cost tens of ms per
/// token request; passwords chosen by people use `PasswordHash` instead.
public enum SecretDigest {
    public static func hash(_ secret: String) -> String {
        Digest.sha256Hex(Array(secret.utf8))
    }

    /// Whether `secret` hashes to `storedHash`, without an early exit on the first difference.
    public static func matches(_ secret: String, storedHash: String) -> Bool {
        ConstantTime.equals(Array(hash(secret).utf8), Array(storedHash.utf8))
    }
}
