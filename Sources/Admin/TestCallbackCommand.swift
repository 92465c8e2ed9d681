import Foundation
import Model
import Storage
import OIDC

/// `idp-admin apps test-callback CLIENT_ID URL`: says whether /authorize would accept URL as
/// the client's redirect_uri, and if not exactly why and which registered entry was closest.
///
/// Output: `allowed (matches ENTRY)` on standard output with exit status 0; or, when refused,
/// `refused: REASON` and `nearest allowed callback: ENTRY` with exit status 1. A refusal is a
/// result, not an error: it is printed on standard output like an allowed verdict (exit status 1).
/// JSON: `{"allowed":bool,"reason":…,"nearest":…,"entry":…}` (nulls when absent).
enum TestCallbackCommand {
    static let command = make(clients: { try SQLiteClientStore(store: $0.store()) })

    /// The command, loading clients through `clients`.
    static func make(clients: @escaping @Sendable (Invocation) throws -> any ClientStore) -> Command {
        Command(
            ["apps", "test-callback"],
            summary: "Check whether a URL is an allowed callback of an application, and why not.",
            usage: "apps test-callback CLIENT_ID URL [--json]",
            details: "Applies the exact /authorize rules (byte-exact match, Auth0 wildcards, loopback any-port for native apps).\nExit status 1 when refused; the verdict is printed on standard output either way.",
            positionals: 2...2,
            run: { invocation in
                let clientID = invocation.arguments.positionals[0]
                let url = invocation.arguments.positionals[1]
                let store = try clients(invocation)
                let found: Client?
                do {
                    found = try store.find(clientID: clientID)
                } catch {
                    throw AdminError.failed("cannot read the application \(clientID): \(error)")
                }
                guard let client = found else { throw AdminError.failed("no application with client id \(clientID)") }
                var output = verdict(client: client, url: url)
                if case false = CallbackVerdict.evaluate(client: client, url: url).allowed { output.status = 1 }
                return output
            })
    }

    /// The verdict as command output (text and JSON); pure.
    static func verdict(client: Client, url: String) -> Output {
        let verdict = CallbackVerdict.evaluate(client: client, url: url)
        var json: [String: Any] = ["allowed": verdict.allowed]
        for (key, value) in verdict.fields { json[key] = value ?? NSNull() }
        return Output(json: json, text: verdict.text)
    }
}
