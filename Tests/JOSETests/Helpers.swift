import Crypto
import Foundation
import JOSE

/// Keys shared by the JOSE tests; generated once per test process.
struct Fixture: Sendable {
    let rsa: SigningKey
    let ec: SigningKey

    static let shared: Fixture = {
        do {
            return Fixture(rsa: try SigningKey.generate(.rs256), ec: try SigningKey.generate(.es256))
        } catch {
            fatalError("key generation failed: \(error)")
        }
    }()

    /// Resolves kids "rsa1" and "ec1" to our public keys.
    func lookup(_ kid: String) -> (PublicKey, JWS.Algorithm)? {
        switch kid {
        case "rsa1": (rsa.publicKey, .rs256)
        case "ec1": (ec.publicKey, .es256)
        default: nil
        }
    }
}

/// Builds a compact token from a literal header JSON and payload, signing
/// the signing input with `sign`; lets tests craft hostile tokens by hand.
func craft(header: String, payload: [UInt8] = Array(#"{"sub":"alice"}"#.utf8),
           sign: (String) throws -> [UInt8]) rethrows -> String {
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
    return input + "." + Base64URL.encode(try sign(input))
}

/// Encodes a raw r||s signature as DER, independently of the library.
func derFromRaw(_ raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}

/// Runs a command, returning exit status and captured output.
@discardableResult
func run(_ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Drain the pipes before waiting so the child cannot block on a full pipe
    // (the scripts write little to stderr, so reading it second is safe).
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errText = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errText, as: UTF8.self))
}

/// A fresh, uniquely named temporary directory (tests run in parallel).
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("gatehouse-jose-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Path of a file in Tests/interop.
func interopScript(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("interop").appendingPathComponent(name).path
}
