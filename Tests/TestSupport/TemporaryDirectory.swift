import Foundation

/// A fresh directory per test, so tests run in parallel without sharing files.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "gatehouse") throws {
        path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    public func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
