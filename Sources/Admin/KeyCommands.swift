import Crypto
import Foundation
import KeyManagement
import Model
import Storage

/// `idp-admin keys list | rotate | retire | delete`.
enum KeyCommands {
    static let all = [list, rotate, retire, delete]

    static let list = Command(
        ["keys", "list"],
        summary: "List signing keys: active ones sign and are published, retired ones are only published.",
        usage: "keys list [--json]",
        run: { invocation in
            let keys = try manager(invocation).list()
            return Output.table(["KID", "ALG", "STATUS", "CREATED_AT", "RETIRED_AT"],
                                keys.map { [$0.kid, $0.algorithm, $0.status.rawValue, timestamp($0.createdAt), $0.retiredAt.map(timestamp) ?? "-"] },
                                json: keys.map(json))
        })

    static let rotate = Command(
        ["keys", "rotate"],
        summary: "Create a new active key and retire the previous one (it stays published for existing tokens).",
        usage: "keys rotate [--alg RS256|ES256] [--json]",
        details: "Without --alg both algorithms rotate. With --json, one object for --alg, else an array.\nA running idp starts signing with the new key within 5 seconds.",
        valueFlags: ["--alg"],
        run: { invocation in
            var algorithms = SigningKey.Algorithm.allCases
            if let name = invocation.arguments.value("--alg") {
                guard let algorithm = SigningKey.Algorithm(rawValue: name) else {
                    throw AdminError.usage("--alg must be RS256 or ES256, not \(name)")
                }
                algorithms = [algorithm]
            }
            let keys = try manager(invocation)
            var created: [SigningKeyRecord] = []
            for algorithm in algorithms {
                let record = try mapKeyErrors { try keys.rotate(algorithm) }
                try invocation.audit("keys.rotated", details: ["kid": record.kid, "alg": record.algorithm])
                created.append(record)
            }
            let text = created.map { "rotated \($0.algorithm): new active key \($0.kid)" }.joined(separator: "\n")
            return Output(json: created.count == 1 && invocation.arguments.value("--alg") != nil ? json(created[0]) : created.map(json), text: text)
        })

    static let retire = Command(
        ["keys", "retire"],
        summary: "Stop a key from signing; it stays in the JWKS until deleted.",
        usage: "keys retire KID [--json]",
        details: "The only active key of an algorithm cannot be retired: rotate it instead, so signing never stops.",
        positionals: 1...1,
        run: { invocation in
            let kid = invocation.arguments.positionals[0]
            let keys = try manager(invocation)
            try mapKeyErrors { try keys.retire(kid: kid) }
            try invocation.audit("keys.retired", details: ["kid": kid])
            let record = try keys.list().first { $0.kid == kid }
            return Output(json: record.map(json) ?? ["kid": kid], text: "retired \(kid)")
        })

    static let delete = Command(
        ["keys", "delete"],
        summary: "Remove a retired key from the JWKS; tokens it signed stop verifying.",
        usage: "keys delete KID [--force] [--yes] [--json]",
        details: """
            An active key cannot be deleted. A key retired less than the longest token lifetime ago (the longest
            access or ID token lifetime of any application or API) may still have signed tokens in use: that is
            refused unless --force is given, with the time it becomes safe.
            """,
        switchFlags: ["--force"],
        positionals: 1...1,
        run: { invocation in
            let kid = invocation.arguments.positionals[0]
            let keys = try manager(invocation)
            guard let record = try mapKeyErrors({ try keys.list() }).first(where: { $0.kid == kid }) else {
                throw AdminError.failed("no signing key \(kid)")
            }
            if let retired = record.retiredAt, !invocation.arguments.has("--force") {
                let longest = try longestTokenLifetime(invocation)
                let safe = retired.addingTimeInterval(TimeInterval(longest))
                if safe > Date() {
                    throw AdminError.failed("""
                        \(kid) was retired at \(timestamp(retired)); tokens it signed may live \(longest) s (the longest token \
                        lifetime configured), so deleting it before \(timestamp(safe)) would make them fail verification. \
                        Wait, or pass --force.
                        """)
                }
            }
            try invocation.confirm("Delete the signing key \(kid)? Tokens it signed stop verifying.")
            try mapKeyErrors { try keys.delete(kid: kid) }
            try invocation.audit("keys.deleted", details: ["kid": kid])
            return Output(json: ["kid": kid, "deleted": true], text: "deleted \(kid)")
        })

    /// The longest lifetime, in seconds, of any token a key may have signed: access and ID tokens of
    /// every application, access tokens of every API.
    static func longestTokenLifetime(_ invocation: Invocation) throws -> Int {
        let store = try invocation.store()
        let clients = try storageFailures { () throws(StorageError) in try SQLiteClientStore(store: store).list() }
        let apis = try storageFailures { () throws(StorageError) in try SQLiteAPIStore(store: store).list() }
        return (clients.flatMap { [$0.accessTokenLifetime, $0.idTokenLifetime] } + apis.map(\.tokenLifetime)).max() ?? 86_400
    }

    private static func manager(_ invocation: Invocation) throws -> KeyManager {
        let store = try invocation.store()
        return try mapKeyErrors { try KeyManager.open(store: store, settings: invocation.settings()) }
    }

    private static func mapKeyErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeyError {
            throw AdminError.failed(error.description)
        }
    }

    static func json(_ record: SigningKeyRecord) -> [String: Any] {
        var object: [String: Any] = ["kid": record.kid, "alg": record.algorithm, "status": record.status.rawValue,
                                     "created_at": timestamp(record.createdAt)]
        if let retired = record.retiredAt { object["retired_at"] = timestamp(retired) }
        return object
    }
}

/// ISO 8601 UTC, e.g. `2026-11-29T21:04:05Z`.
func timestamp(_ date: Date) -> String {
    date.formatted(.iso8601)
}
