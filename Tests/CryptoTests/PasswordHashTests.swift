import Crypto
import Foundation
import Synchronization
import Testing

@Suite("Password hashing")
struct PasswordHashTests {
    @Test("scrypt hash verifies and is self-describing")
    func scrypt() throws {
        let encoded = try PasswordHash.hash("correct horse")
        #expect(encoded.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(PasswordHash.verify("correct horse", against: encoded))
        #expect(!PasswordHash.verify("correct horsf", against: encoded))
        #expect(!PasswordHash.verify("", against: encoded))
        #expect(!PasswordHash.needsRehash(encoded))
        #expect(try PasswordHash.hash("correct horse") != encoded) // fresh salt
    }

    /// The total is process-wide and other suites hash at the same time, so only a lower bound holds.
    @Test("hashing and verifying count their CPU for /metrics")
    func hashingCPUIsCounted() throws {
        var before = PasswordHashingCPU.seconds
        let encoded = try PasswordHash.hash("correct horse")
        // One scrypt at N = 2^15, r = 8 touches 32 MiB twice: well over a millisecond of CPU anywhere.
        #expect(PasswordHashingCPU.seconds - before > 0.001)
        before = PasswordHashingCPU.seconds
        #expect(PasswordHash.verify("correct horse", against: encoded))
        #expect(PasswordHashingCPU.seconds - before > 0.001)
    }

    @Test("no more hashes run at once than there are cores, however many callers")
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

    @Test("weaker scrypt parameters need a rehash")
    func weaker() throws {
        let weak = try PasswordHash.hash("pw", parameters: ScryptParameters(logN: 10, r: 8, p: 1))
        #expect(weak.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(PasswordHash.verify("pw", against: weak))
        #expect(PasswordHash.needsRehash(weak))
        let smallR = try PasswordHash.hash("pw", parameters: ScryptParameters(logN: 15, r: 4, p: 1))
        #expect(PasswordHash.needsRehash(smallR))
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 with the crypt module is required")
        let hash = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
