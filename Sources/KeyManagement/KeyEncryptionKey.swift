import Crypto
import FoundationEssentials
import Glibc
import Settings

/// The 32-byte key that encrypts signing keys at rest, and where it came from.
public struct KeyEncryptionKey: Sendable {
    let bytes: [UInt8]
    /// For messages: "IDP_KEY_ENCRYPTION_KEY / key_encryption_key" or the file path.
    public let source: String

    init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// A 32-byte server secret for `purpose`, HMAC-SHA256(key-encryption key, purpose), so other
    /// features (e.g. refresh-token successors) get their own key without storing another secret.
    public func derivedKey(purpose: String) -> [UInt8] {
        HMAC.sha256(key: bytes, data: Array(purpose.utf8))
    }

    /// Loads the key from `key_encryption_key`, else from `key_encryption_key_file`.
    ///
    /// - Parameter mayCreate: create the file (mode 0600) when it is missing. Only allowed
    ///   while no signing key exists: a missing file beside existing keys is an error, never a new key.
    public static func load(settings: Settings, mayCreate: Bool) throws(KeyError) -> KeyEncryptionKey {
        if let inline = settings.keyEncryptionKey {
            guard let data = Data(base64Encoded: inline), data.count == AESGCM.keySize else {
                throw .keyEncryptionKeyUnusable("key_encryption_key is not the base64 encoding of 32 bytes")
            }
            return KeyEncryptionKey(bytes: Array(data), source: "key_encryption_key")
        }
        let path = settings.effectiveKeyEncryptionKeyFile
        if !FileManager.default.fileExists(atPath: path) {
            guard mayCreate else {
                throw .keyEncryptionKeyUnusable("\(path) does not exist, but the database already holds signing keys encrypted under a key-encryption key")
            }
            try create(at: path)
        }
        return try read(path)
    }

    private static func read(_ path: String) throws(KeyError) -> KeyEncryptionKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .keyEncryptionKeyUnusable("cannot read \(path)")
        }
        // Editors and `echo` leave a newline; Character.isWhitespace is the set .whitespacesAndNewlines was.
        var text = Substring(decoding: data, as: UTF8.self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        guard let bytes = Data(base64Encoded: String(text)), bytes.count == AESGCM.keySize else {
            throw .keyEncryptionKeyUnusable("\(path) does not hold the base64 encoding of 32 bytes")
        }
        return KeyEncryptionKey(bytes: Array(bytes), source: path)
    }

    /// Writes a fresh random key with O_EXCL, so two processes starting at once agree on one key.
    private static func create(at path: String) throws(KeyError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""  // "" for a bare file name or /file
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return }  // Another process created it first; read theirs.
            throw .keyEncryptionKeyUnusable("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let text = Array((Data(Random.bytes(AESGCM.keySize)).base64EncodedString() + "\n").utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == text.count, fsync(descriptor) == 0 else {
            unlink(path)
            throw .keyEncryptionKeyUnusable("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
