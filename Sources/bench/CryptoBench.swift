import Crypto
import Foundation

/// `bench crypto [--seconds S] [--clock cpu|wall]`: single-threaded signing,
/// verification and password-hash cost with reused key objects, as JSON lines.
/// The default CPU clock matches `openssl speed`, so ratios against it hold
/// even on a busy machine.
enum CryptoBench: BenchCommand {
    static let name = "crypto"
    static let usage = "crypto [--seconds S] [--clock cpu|wall]   RS256/ES256 sign+verify ops/s, Argon2id password verify ms"

    static func run(arguments: [String]) throws {
        let options = try BenchSupport.options(arguments, allowed: ["--seconds", "--clock"])
        guard let clock = BenchSupport.Clock(rawValue: options["--clock"] ?? "cpu") else {
            throw BenchUsageError(description: "--clock must be cpu or wall")
        }
        let seconds = try options["--seconds"].map {
            guard let value = Double($0), value > 0 else { throw BenchUsageError(description: "bad --seconds \($0)") }
            return value
        } ?? 3

        // A typical signing input: header.payload of a modest ID token.
        let message = Array(String(repeating: "eyJhbGciOiJSUzI1NiJ9", count: 20).utf8)
        for (label, algorithm) in [("rs256", SigningKey.Algorithm.rs256), ("es256", .es256)] {
            let key = try SigningKey.generate(algorithm)
            let signature = try key.sign(message)
            let publicKey = key.publicKey
            BenchSupport.emit("\(label)_sign", "ops_per_sec", try BenchSupport.throughput(seconds: seconds, clock: clock) {
                _ = try key.sign(message)
            })
            BenchSupport.emit("\(label)_verify", "ops_per_sec", BenchSupport.throughput(seconds: seconds, clock: clock) {
                precondition(publicKey.verify(signature, for: message))
            })
        }

        let encoded = try PasswordHash.hash("correct horse battery staple")
        let rounds = 5
        let start = BenchSupport.now(clock)
        for _ in 0..<rounds { precondition(PasswordHash.verify("correct horse battery staple", against: encoded)) }
        BenchSupport.emit("password_verify", "ms", (BenchSupport.now(clock) - start) * 1000 / Double(rounds))
    }
}
