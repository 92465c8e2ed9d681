import Model
import SQLite

/// A client's three allow-lists as rows of `client_allowed_urls`, kept in the operator's order.
enum ClientAllowedURLs {
    struct Lists {
        var callbacks: [String] = []
        var logoutURLs: [String] = []
        var webOrigins: [String] = []
    }

    /// Replaces every row of the client with its current lists; call inside the client's write.
    static func replace(for client: Client, in connection: any SQLConnection) throws {
        _ = try connection.run("DELETE FROM client_allowed_urls WHERE client_id = ?", [.text(client.clientID)])
        for (kind, urls) in [("callback", client.callbacks), ("logout", client.logoutURLs), ("web_origin", client.webOrigins)] {
            for (position, url) in urls.enumerated() {
                _ = try connection.run(
                    "INSERT INTO client_allowed_urls (client_id, kind, position, url) VALUES (?, ?, ?, ?)",
                    [.text(client.clientID), .text(kind), .integer(Int64(position)), .text(url)])
            }
        }
    }

    /// The lists of one client, or of every client when `clientID` is nil, keyed by client id.
    static func load(clientID: String?, from connection: any SQLConnection) throws -> [String: Lists] {
        // Two texts rather than `?1 IS NULL OR client_id = ?1`, which SQLite cannot answer from the index.
        let rows = try clientID.map { clientID in
            try connection.query("SELECT client_id, kind, url FROM client_allowed_urls WHERE client_id = ? ORDER BY kind, position",
                                 [.text(clientID)])
        } ?? connection.query("SELECT client_id, kind, url FROM client_allowed_urls ORDER BY client_id, kind, position")
        var lists: [String: Lists] = [:]
        for row in rows {
            let owner = try row.string("client_id")
            let url = try row.string("url")
            switch try row.string("kind") {
            case "callback": lists[owner, default: Lists()].callbacks.append(url)
            case "logout": lists[owner, default: Lists()].logoutURLs.append(url)
            default: lists[owner, default: Lists()].webOrigins.append(url)
            }
        }
        return lists
    }
}
