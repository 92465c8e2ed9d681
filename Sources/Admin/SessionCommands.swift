import Foundation
import Model
import Storage

/// `idp-admin sessions list | revoke | revoke-all` and `idp-admin tokens revoke`: one session and
/// one token family per device sign-in, ended and revoked per device or all at once.
enum SessionCommands {
    static let all = [list, revoke, revokeAll, revokeTokens]

    static let list = Command(
        ["sessions", "list"],
        summary: "List a user's sign-in sessions (one per device and login), newest first.",
        usage: "sessions list --user USER_ID|EMAIL [--json]",
        details: """
            Shows each session's id (the `sid` claim), device, IP address, when it was created and last seen (its
            sign-in, or the latest refresh token issued or rotated under it before it ended), whether it is live
            or ended, and how many refresh tokens issued under it can still be used. A session
            a native app handed to its web view (README "Native to web") names its parent grant (`transferred_from`):
            revoking that grant ends it.
            """,
        valueFlags: ["--user"],
        run: { invocation in
            let store = try invocation.store()
            let userID = try requiredUser(invocation, store: store)
            let now = Date()
            let sessions = try storageFailures { () throws(StorageError) in try SQLiteSessionStore(store: store).list(userID: userID) }
            let counts = try storageFailures { () throws(StorageError) in
                try SQLiteRefreshTokenStore(store: store).liveCountsBySession(userID: userID, at: now)
            }
            let rows = sessions.map { session in
                [session.sessionID, session.deviceName ?? "-", session.ip ?? "-", timestamp(session.createdAt),
                 timestamp(session.lastSeenAt), state(session, now: now), String(counts[session.sessionID] ?? 0)]
            }
            return Output.table(["SESSION_ID", "DEVICE", "IP", "CREATED_AT", "LAST_SEEN_AT", "STATE", "LIVE_REFRESH_TOKENS"], rows,
                                json: sessions.map { json($0, liveRefreshTokens: counts[$0.sessionID] ?? 0, now: now) })
        })

    static let revoke = Command(
        ["sessions", "revoke"],
        summary: "End one session and revoke every token issued under it (its refresh and access tokens stop working).",
        usage: "sessions revoke SESSION_ID [--json]",
        details: """
            Signs that device out: the session ends, and every grant of the session is revoked, so its
            refresh tokens get invalid_grant and its access tokens get 401 at /userinfo at once.
            Other devices of the same user are not affected. Revoking an ended session is harmless.
            """,
        positionals: 1...1,
        run: { invocation in
            let sessionID = invocation.arguments.positionals[0]
            let store = try invocation.store()
            let session = try storageFailures { () throws(StorageError) in try SQLiteSessionStore(store: store).find(sessionID: sessionID) }
            guard let session else { throw AdminError.failed("no session \(sessionID)") }
            let grants = try storageFailures { () throws(StorageError) in
                try SessionRevocation(store: store).revokeSession(sessionID: sessionID, at: Date(), reason: "session revoked by operator")
            }
            try invocation.audit("sessions.revoked", userID: session.userID,
                                 details: ["session_id": sessionID, "grants_revoked": String(grants)])
            return Output(json: ["session_id": sessionID, "user_id": session.userID, "revoked": true, "grants_revoked": grants],
                          text: "revoked session \(sessionID) (\(grants) token \(grants == 1 ? "family" : "families") revoked)")
        })

    static let revokeAll = Command(
        ["sessions", "revoke-all"],
        summary: "End every session of a user and revoke every token issued under them.",
        usage: "sessions revoke-all --user USER_ID|EMAIL [--yes] [--json]",
        details: "Signs the user out on every device; use after a lost device or a suspected compromise.",
        valueFlags: ["--user"],
        run: { invocation in
            let store = try invocation.store()
            let userID = try requiredUser(invocation, store: store)
            try invocation.confirm("Sign \(userID) out on every device (end all sessions, revoke all tokens)?")
            let result = try storageFailures { () throws(StorageError) in
                try SessionRevocation(store: store).revokeAllSessions(userID: userID, at: Date(), reason: "all sessions revoked by operator")
            }
            try invocation.audit("sessions.revoked_all", userID: userID,
                                 details: ["sessions_ended": String(result.sessions), "grants_revoked": String(result.grants)])
            return Output(json: ["user_id": userID, "sessions_ended": result.sessions, "grants_revoked": result.grants],
                          text: "ended \(result.sessions) session(s) of \(userID); revoked \(result.grants) token family(ies)")
        })

    static let revokeTokens = Command(
        ["tokens", "revoke"],
        summary: "Revoke a user's tokens (refresh and access), for every application or one.",
        usage: "tokens revoke --user USER_ID|EMAIL [--app CLIENT_ID] [--yes] [--json]",
        details: """
            Revokes the user's grants: their refresh tokens get invalid_grant and their access tokens 401.
            Sessions stay signed in, so the user can sign in to the app again without a password.
            """,
        valueFlags: ["--user", "--app"],
        run: { invocation in
            let clientID = invocation.arguments.value("--app")
            let store = try invocation.store()
            let userID = try requiredUser(invocation, store: store)
            if let clientID {
                let client = try storageFailures { () throws(StorageError) in try SQLiteClientStore(store: store).find(clientID: clientID) }
                guard client != nil else { throw AdminError.failed("no application \(clientID)") }
            }
            try invocation.confirm("Revoke the tokens of \(userID)\(clientID.map { " for \($0)" } ?? " for every application")?")
            let grants = try storageFailures { () throws(StorageError) in
                try SessionRevocation(store: store).revokeGrants(userID: userID, clientID: clientID, at: Date(),
                                                                 reason: "tokens revoked by operator")
            }
            var details = ["grants_revoked": String(grants)]
            if let clientID { details["client_id"] = clientID }
            try invocation.audit("tokens.revoked", clientID: clientID, userID: userID, details: details)
            var json: [String: Any] = ["user_id": userID, "grants_revoked": grants]
            if let clientID { json["client_id"] = clientID }
            return Output(json: json, text: "revoked \(grants) token family(ies) of \(userID)\(clientID.map { " for \($0)" } ?? "")")
        })

    /// The user named by `--user`, an id or an email, as everywhere else in idp-admin.
    private static func requiredUser(_ invocation: Invocation, store: any GatehouseStorage) throws -> String {
        guard let key = invocation.arguments.value("--user"), !key.isEmpty else { throw AdminError.usage("--user is required") }
        return try UserCommands.existingUser(key, in: SQLiteUserStore(store: store)).userID
    }

    static func state(_ session: Session, now: Date) -> String {
        if session.endedAt != nil { return "ended" }
        return session.isLive(at: now) ? "live" : "expired"
    }

    static func json(_ session: Session, liveRefreshTokens: Int, now: Date) -> [String: Any] {
        var object: [String: Any] = ["session_id": session.sessionID, "user_id": session.userID,
                                     "created_at": timestamp(session.createdAt), "last_seen_at": timestamp(session.lastSeenAt),
                                     "expires_at": timestamp(session.expiresAt), "state": state(session, now: now),
                                     "live": session.isLive(at: now), "live_refresh_tokens": liveRefreshTokens]
        object["device_name"] = session.deviceName
        object["ip"] = session.ip
        if let ended = session.endedAt { object["ended_at"] = timestamp(ended) }
        if let parent = session.parentGrantID { object["transferred_from"] = parent }
        return object
    }
}
