import Foundation
import Model
import Storage
import Testing
import TestSupport

/// `SigningKeyStore` on both SQL backends: rotation keeps one active key, and nodes racing on an
/// empty database end with exactly one active key per algorithm.
@Suite struct SigningKeyStoreBackendTests {
    static var backends: [StoreBackend] { StoreBackend.allCases.filter { $0 != .memory } }

    func record(_ kid: String, alg: String = "ES256", at offset: TimeInterval = 0) -> SigningKeyRecord {
        SigningKeyRecord(kid: kid, algorithm: alg, status: .active, encryptedPrivateKey: [0, 1, 2, 0xff], publicJWK: "{\"kid\":\"\(kid)\"}",
                         createdAt: Sample.now + offset)
    }

    /// The store and something to keep alive; for PostgreSQL also a factory for more nodes' stores.
    func make(_ backend: StoreBackend) throws -> (keys: SigningKeyStore, node: () throws -> SigningKeyStore, keepAlive: [AnyObject]) {
        switch backend {
        case .postgresql:
            let store = try makeTestPostgresStore()
            return (SigningKeyStore(store: store), { SigningKeyStore(store: try makeSecondPostgresStore(like: store, maxConnections: 2)) }, [store])
        default:
            let (store, directory) = try makeTestStore()
            return (SigningKeyStore(store: store), { SigningKeyStore(store: try Store(path: store.path)) }, [store, directory])
        }
    }

    @Test(arguments: backends)
    func rotationRetiresThePredecessorAndTheFingerprintFollows(_ backend: StoreBackend) throws {
        let (keys, _, keepAlive) = try make(backend)
        _ = keepAlive
        try keys.activate(record("k1"), at: Sample.now)
        let before = try keys.fingerprint()
        try keys.activate(record("k2", at: 1), at: Sample.now + 1)
        #expect(try keys.all().map(\.kid) == ["k1", "k2"])
        #expect(try keys.all().map(\.status) == [.retired, .active])
        #expect(try keys.find(kid: "k1")?.encryptedPrivateKey == [0, 1, 2, 0xff])
        #expect(try keys.fingerprint() == "2|k1:retired,k2:active")
        #expect(try keys.fingerprint() != before)
        #expect(throws: StorageError.self) { try keys.retire(kid: "k2", at: Sample.now) }
        #expect(throws: StorageError.self) { try keys.delete(kid: "k2") }
        try keys.delete(kid: "k1")
        #expect(try keys.all().map(\.kid) == ["k2"])
    }

    @Test(arguments: backends)
    func nodesStartingTogetherAgreeOnOneActiveKey(_ backend: StoreBackend) throws {
        let (keys, node, keepAlive) = try make(backend)
        _ = keepAlive
        let nodes = try (0..<6).map { _ in try node() }
        let won = Collected<[String]>([])
        DispatchQueue.concurrentPerform(iterations: nodes.count) { index in
            if (try? nodes[index].activateIfNone(record("node-\(index)"))) == true { won.withLock { $0.append("node-\(index)") } }
        }
        let active = try keys.all().filter { $0.status == .active }
        #expect(won.withLock { $0 }.count == 1)
        #expect(active.map(\.kid) == won.withLock { $0 })
    }
}
