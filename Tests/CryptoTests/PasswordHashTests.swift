import Crypto
import Foundation
import Synchronization
import Testing

@Suite("Password hashing")
struct PasswordHashTests {
    @Test("an Argon2id hash verifies and is self-describing")
    func argon2id() throws {
        let encoded = try PasswordHash.hash("correct horse")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=7168,t=5,p=1$"))
        #expect(encoded.count == 96)  // 16-byte salt, 32-byte hash
        #expect(PasswordHash.verify("correct horse", against: encoded))
        #expect(!PasswordHash.verify("correct horsf", against: encoded))
        #expect(!PasswordHash.verify("", against: encoded))
        #expect(!PasswordHash.needsRehash(encoded))
        #expect(try PasswordHash.hash("correct horse") != encoded) // fresh salt
    }

    @Test("a scrypt hash of an earlier release verifies and needs a rehash")
    func scrypt() throws {
        let encoded = try PasswordHash.hash("correct horse", parameters: ScryptParameters(logN: 15, r: 8, p: 1))
        #expect(encoded.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(PasswordHash.verify("correct horse", against: encoded))
        #expect(!PasswordHash.verify("correct horsf", against: encoded))
        #expect(PasswordHash.needsRehash(encoded))
    }

    /// The total is process-wide and other suites hash at the same time, so only a lower bound holds.
    @Test("hashing and verifying count their CPU for /metrics")
    func hashingCPUIsCounted() throws {
        var before = PasswordHashingCPU.seconds
        let encoded = try PasswordHash.hash("correct horse")
        // One Argon2id at m = 7 MiB, t = 5 fills 7 MiB five times: well over a millisecond of CPU anywhere.
        #expect(PasswordHashingCPU.seconds - before > 0.001)
        before = PasswordHashingCPU.seconds
        #expect(PasswordHash.verify("correct horse", against: encoded))
        #expect(PasswordHashingCPU.seconds - before > 0.001)
    }

    @Test("no more hashes run at once than the gate allows (half the cores), however many callers")
    func hashesWaitForACore() throws {
        let encoded = try PasswordHash.hash("correct horse", parameters: ScryptParameters(logN: 12, r: 8, p: 1))
        let callers = PasswordHashingGate.limit * 4
        let verified = Atomic<Int>(0)
        // One thread per caller (a concurrentPerform would itself stop at the core count).
        let done = DispatchGroup()
        for _ in 0..<callers {
            done.enter()
            Thread {
                if PasswordHash.verify("correct horse", against: encoded) { verified.add(1, ordering: .relaxed) }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(verified.load(ordering: .relaxed) == callers)
        #expect(PasswordHashingGate.peak <= PasswordHashingGate.limit)
        #expect(PasswordHashingGate.peak >= 1)
    }

    /// Less memory or fewer passes than today's default need a rehash; more of either, or more
    /// lanes, do not.
    @Test("weaker Argon2id parameters need a rehash", arguments: [
        (Argon2Parameters(memoryKiB: 4096, iterations: 5, parallelism: 1), true),
        (Argon2Parameters(memoryKiB: 7168, iterations: 4, parallelism: 1), true),
        (Argon2Parameters(memoryKiB: 7168, iterations: 5, parallelism: 1), false),
        (Argon2Parameters(memoryKiB: 8192, iterations: 5, parallelism: 2), false),
        (Argon2Parameters(memoryKiB: 7168, iterations: 6, parallelism: 1), false),
    ])
    func weaker(parameters: Argon2Parameters, needsRehash: Bool) throws {
        let encoded = try PasswordHash.hash("pw", parameters: parameters)
        #expect(encoded.hasPrefix("$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$"))
        #expect(PasswordHash.verify("pw", against: encoded))
        #expect(PasswordHash.needsRehash(encoded) == needsRehash)
    }

    @Test("parameters outside the accepted range are refused when hashing", arguments: [
        Argon2Parameters(memoryKiB: 7168, iterations: 0, parallelism: 1),
        Argon2Parameters(memoryKiB: 7168, iterations: 5, parallelism: 0),
        Argon2Parameters(memoryKiB: 15, iterations: 1, parallelism: 2),
        Argon2Parameters(memoryKiB: 512 * 1024, iterations: 1, parallelism: 1),
        Argon2Parameters(memoryKiB: 7168, iterations: 17, parallelism: 1),
    ])
    func outOfRange(parameters: Argon2Parameters) {
        #expect(throws: CryptoError.self) { try PasswordHash.hash("pw", parameters: parameters) }
    }

    static let malformed: [String] = [
        "", "$scrypt$", "scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        "$scrypt$ln=15,r=8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=99,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=015,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=-1,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1$AAAA=AAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$",
        "$scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA$extra",
        "$2b$12$tooshort", "$2x$12$j4R5yfhrFWBmtwATaq9hL.3v38GmEQKLMJtWotmb.y53rLjNucorC",
        "$2b$99$j4R5yfhrFWBmtwATaq9hL.3v38GmEQKLMJtWotmb.y53rLjNucorC",
        "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", "plaintext", "$$$$",
        // Argon2 (salt "somesaltsomesalt", a 32-byte hash) with one thing wrong in each.
        "$argon2i$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=16$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=07168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=5$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$t=5,m=7168,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=1048576,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=0,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=99,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=8,t=5,p=2$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA==$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ_l-PU2ts",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHQ$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTj",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA$r4Oo1wGvZA95Ee2ql0BxTjPMLtEb2RJx3pJ/l+PU2ts$",
        "$argon2id$v=19$m=7168,t=5,p=1$c29tZXNhbHRzb21lc2FsdA",
    ]

    @Test("malformed encodings never verify and need a rehash", arguments: malformed)
    func malformedStrings(encoded: String) {
        #expect(!PasswordHash.verify("pw", against: encoded))
        #expect(PasswordHash.needsRehash(encoded))
    }

    /// Openwall crypt_blowfish's published test vector (wrapper.c tests[]):
    /// "U*U" under salt "CCCCCCCCCCCCCCCCCCCCC." at cost 5.
    @Test("bcrypt published vector ($2a$)")
    func bcryptVector() {
        let hash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(PasswordHash.verify("U*U", against: hash))
        #expect(!PasswordHash.verify("U*V", against: hash))
        #expect(PasswordHash.needsRehash(hash))
    }

    /// An independent generator: Python's `crypt` module (deprecated but present in 3.11).
    @Test("bcrypt hashes made by Python crypt ($2b$ and $2y$)")
    func bcryptPython() throws {
        let script = """
            import crypt, warnings
            warnings.simplefilter("ignore")
            print(crypt.crypt("hunter2 ✓", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))
            """
        let (status, hash) = try PeerTool.run("/usr/bin/env", ["python3", "-c", script])
        try #require(status == 0, "python3 with the crypt module is required")
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(PasswordHash.verify("hunter2 ✓", against: hash))
        #expect(!PasswordHash.verify("hunter2", against: hash))
        #expect(!PasswordHash.verify("hunter2 ✓\u{0}", against: hash))
        #expect(PasswordHash.needsRehash(hash))
        // $2y$ is the PHP spelling of the same algorithm.
        let php = "$2y$" + hash.dropFirst(4)
        #expect(PasswordHash.verify("hunter2 ✓", against: php))
    }
}
