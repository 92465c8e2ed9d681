import Crypto
import Foundation

/// `bench crypto [--seconds S]`: single-threaded signing, verification and
/// password-hash cost with reused key objects, as JSON lines.
enum CryptoBench: BenchCommand {
    static let name = "crypto"
    static let usage = "crypto [--seconds S]   RS256/ES256 sign+verify ops/s, scrypt verify ms"

    static func run(arguments: [String]) throws {
        let options = try BenchSupport.options(arguments, allowed: ["--seconds"])
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
            BenchSupport.emit("\(label)_sign", "ops_per_sec", try BenchSupport.throughput(seconds: seconds) {
                _ = try key.sign(message)
            })
            BenchSupport.emit("\(label)_verify", "ops_per_sec", BenchSupport.throughput(seconds: seconds) {
                precondition(publicKey.verify(signature, for: message))
            })
        }

        let encoded = try PasswordHash.hash("correct horse battery staple")
        let clock = ContinuousClock()
        let rounds = 5
        let elapsed = clock.measure {
            for _ in 0..<rounds { precondition(PasswordHash.verify("correct horse battery staple", against: encoded)) }
        }
        let milliseconds = (Double(elapsed.components.seconds) * 1e3
            + Double(elapsed.components.attoseconds) / 1e15) / Double(rounds)
        BenchSupport.emit("scrypt_verify", "ms", milliseconds)
    }
}
