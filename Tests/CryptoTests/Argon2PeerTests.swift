@testable import Crypto
import Testing

/// Our Argon2id strings against the reference command-line tool (Debian's `argon2`, which
/// `scripts/install-deps --test` installs): the same password, salt and parameters must give the
/// same PHC string, and what the tool writes must verify here.
@Suite("Argon2id against the argon2 tool")
struct Argon2PeerTests {
    @Test(arguments: [
        ("correct horse battery staple", "somesaltsomesalt", Argon2Parameters.default),
        ("パスワード ✓", "0123456789abcdef", Argon2Parameters(memoryKiB: 4096, iterations: 3, parallelism: 2)),
        ("a", "saltsaltsaltsalt", Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)),
    ])
    func sameStringAsTheTool(password: String, salt: String, parameters: Argon2Parameters) throws {
        let theirs = try Self.tool(password: password, salt: salt, parameters: parameters)
        #expect(theirs.hasPrefix("$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$"))
        let ours = try PasswordHash.hash(password, parameters: parameters, salt: Array(salt.utf8))
        #expect(ours == theirs)
        #expect(PasswordHash.verify(password, against: theirs))
        #expect(!PasswordHash.verify(password + " ", against: theirs))
    }

    /// `argon2 SALT -id -t T -k KiB -p P -l 32 -e`, the password on standard input.
    static func tool(password: String, salt: String, parameters: Argon2Parameters) throws -> String {
        let (status, output) = try PeerTool.run("/usr/bin/argon2", [salt, "-id", "-t", "\(parameters.iterations)", "-k", "\(parameters.memoryKiB)",
                                                                     "-p", "\(parameters.parallelism)", "-l", "32", "-e"], input: password)
        try #require(status == 0, "the argon2 tool (Debian package argon2) is required")
        return output
    }
}
