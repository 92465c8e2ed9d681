import FoundationEssentials
import SQL

/// The tables the purge cleans, in the order a run visits them: codes before grants (a code names
/// the grant a replay revokes), grants before sessions (a grant keeps its session).
public enum PurgeTable: String, Sendable, CaseIterable {
    case authorizationCodes = "authorization_codes"
    case loginTransactions = "login_transactions"
    case oneTimeCodes = "one_time_codes"
    case sessionTransferTokens = "session_transfer_tokens"
    case refreshTokens = "refresh_tokens"
    case grants
    case sessions
    case loginThrottle = "login_throttle"
    case revokedAccessTokens = "revoked_access_tokens"
    case revokedGrants = "revoked_grants"
    case auditEvents = "audit_events"
    case mailOutbox = "mail_outbox"
}

/// One rule: which rows of a table are due at the run's instant, found on a reader and deleted
/// one primary key at a time on the writer, with the condition checked again there, so a row
/// that changed in between (say, a session a grant now refers to) is left alone.
///
/// Every statement binds `?1` (a key: the scan cursor, or the row to delete), `?2` (a row limit)
/// and then `bindings` as `?3`, `?4`, …; a statement need not use all of them.
struct PurgeRule: Sendable {
    enum Scan: Sendable {
        /// `candidates` uses an expiry index: due rows come first, deleted rows are not seen again,
        /// so it is rerun from the start until it finds fewer than a batch.
        case expiryIndex
        /// Every row is visited once per run, `window` rows per read in key order (`cursor` gives
        /// the next window's start): for conditions no index can answer.
        case keyset(cursor: String)
        /// Like `keyset`, but the scan stops at the first window without a due row: rows come in
        /// the order they become due (audit events by id, which follows time).
        case oldestFirst(cursor: String)
    }

    let table: PurgeTable
    let scan: Scan
    /// Due keys. Expiry-index scans: `?2` is the limit. Keyset scans: keys in (`?1`, `?2`], the window.
    let candidates: String
    /// Deletes row `?1` if it is still due.
    let delete: String
    /// `count(*)` of due rows, for `idp-admin db stats`.
    let countDue: String
    let bindings: [SQLValue]
    /// The first cursor value: below every key.
    let start: SQLValue
    /// Reads, for row `?1`, the index entries its delete will change (`ColdPages`), or nil when the
    /// candidate scan has read them already.
    var warm: String? = nil
}

extension PurgeRule {
    /// `delete` for `count` keys at once: its `= ?1` becomes `IN (?N+1, …)`, the keys bound after
    /// the statement's own `after` parameters; the condition is checked for each row as before.
    func deleteMany(_ count: Int, after: Int) -> String {
        let list = (1...max(1, count)).map { "?\(after + $0)" }.joined(separator: ", ")
        guard let range = delete.firstRange(of: "= ?1 ") else { return delete }
        var statement = delete
        statement.replaceSubrange(range, with: "IN (\(list)) ")
        return statement
    }
}

extension String {
    /// The highest `?N` the statement uses: the wrapper binds exactly that many values, and a lower
    /// number the statement leaves out is simply never read.
    var highestParameter: Int {
        var highest = 0
        var number: Int?
        for byte in utf8 {
            if byte == UInt8(ascii: "?") {
                number = 0
            } else if let current = number, byte >= 48, byte <= 57 {
                number = current * 10 + Int(byte - 48)
            } else {
                if let current = number { highest = Swift.max(highest, current) }
                number = nil
            }
        }
        if let current = number { highest = Swift.max(highest, current) }
        return highest
    }

    /// `values` cut to what this statement binds.
    func parameters(_ values: [SQLValue]) -> [SQLValue] { Array(values.prefix(highestParameter)) }
}

/// The token-family rule: a grant with its refresh tokens, deleted together once dead.
///
/// A family dies at its revocation; otherwise at the later of (a) when its live refresh token
/// stops being exchangeable (the family's absolute expiry, the application's inactivity
/// lifetime, or that token's revocation) and (b) when the last access token minted from it
/// expires (the live token's issue, or the grant's creation, plus the longest access-token
/// lifetime the application has had, since a lowered lifetime leaves longer tokens out (migration
/// 0020), plus the retry window in which a retried refresh mints without storing). A one-row family
/// (migration 0017, in its grant's row since 0019) has its live token's times in the grant's
/// `refresh_*` columns; an older family's live token is its newest row in `refresh_tokens` (and
/// when it has rotated into a one-row family, the grant's columns decide). Older rotated tokens
/// never decide it: they are only kept so their reuse is detected, which matters only while the
/// family lives. Tokens are deleted oldest generation first, so a family purged over several
/// batches keeps its newest token, and with it the same verdict, until its last batch; a one-row
/// family goes with its grant.
enum FamilyRule {
    static let from = """
        grants g JOIN clients c ON c.client_id = g.client_id
        LEFT JOIN refresh_tokens h ON g.refresh_salt IS NULL AND h.grant_id = g.grant_id
            AND h.generation = (SELECT MAX(generation) FROM refresh_tokens WHERE grant_id = g.grant_id)
        LEFT JOIN apis a ON g.user_id IS NULL AND a.identifier = g.audience
        """

    /// `?3` grace cutoff (dead at or before it), `?4` code cutoff (younger grants may still be
    /// named by a code row), `?5` retry margin, `?6` access-token lifetime for machine grants
    /// whose API is gone.
    /// Both arguments of the outer `greatest` and of each `least` are non-NULL (NOT NULL columns,
    /// a COALESCE), so SQLite's `max`/`min` and PostgreSQL's `GREATEST`/`LEAST` agree.
    static func due(_ dialect: SQLDialect) -> String {
        let lastAccess = """
            COALESCE(g.refresh_rotated_at, g.refresh_issued_at, h.issued_at, g.created_at) + ?5
                + CASE WHEN g.user_id IS NULL THEN COALESCE(a.token_lifetime, ?6) ELSE c.longest_access_token_lifetime END
            """
        let idleEnd = "COALESCE(g.refresh_rotated_at, g.refresh_issued_at) + c.refresh_idle_lifetime"
        let exchangeable = """
            CASE WHEN g.refresh_salt IS NOT NULL THEN
                     CASE WHEN c.refresh_idle_lifetime > 0 THEN \(dialect.least("g.refresh_expires_at", idleEnd))
                          ELSE g.refresh_expires_at END
                 WHEN h.grant_id IS NULL THEN 0
                 WHEN h.revoked_at IS NOT NULL THEN \(dialect.least("h.revoked_at", "h.expires_at"))
                 WHEN c.refresh_idle_lifetime > 0 THEN \(dialect.least("h.expires_at", "h.last_used_at + c.refresh_idle_lifetime"))
                 ELSE h.expires_at END
            """
        return """
            g.created_at <= ?4 AND (CASE WHEN g.revoked_at IS NOT NULL THEN g.revoked_at ELSE \(dialect.greatest(lastAccess, exchangeable)) END) <= ?3
            """
    }

    static func candidates(_ dialect: SQLDialect) -> String {
        "SELECT g.grant_id FROM \(from) WHERE g.grant_id > ?1 AND g.grant_id <= ?2 AND \(due(dialect)) ORDER BY g.grant_id"
    }
    static let window = "SELECT MAX(grant_id) FROM (SELECT grant_id FROM grants WHERE grant_id > ?1 ORDER BY grant_id LIMIT ?2) AS w"
    static func stillDue(_ dialect: SQLDialect) -> String { "SELECT 1 FROM \(from) WHERE g.grant_id = ?1 AND \(due(dialect))" }
    /// At most `?2` of the family's oldest tokens.
    static let deleteTokens = """
        DELETE FROM refresh_tokens WHERE grant_id = ?1
            AND generation < (SELECT MIN(generation) FROM refresh_tokens WHERE grant_id = ?1) + ?2
        """
    /// The grant, once no older token of it is left; says whether a one-row family (one refresh
    /// token, its live one) went with it.
    static let deleteGrant = """
        DELETE FROM grants WHERE grant_id = ?1 AND NOT EXISTS (SELECT 1 FROM refresh_tokens WHERE grant_id = ?1)
        RETURNING CASE WHEN refresh_salt IS NULL THEN 0 ELSE 1 END AS family_rows
        """
    static func countGrants(_ dialect: SQLDialect) -> String { "SELECT count(*) FROM \(from) WHERE \(due(dialect))" }
    /// Older tokens and one-row families alike count as refresh tokens.
    static func countTokens(_ dialect: SQLDialect) -> String {
        """
        SELECT (SELECT count(*) FROM refresh_tokens WHERE grant_id IN (SELECT g.grant_id FROM \(from) WHERE \(due(dialect))))
            + (SELECT count(*) FROM \(from) WHERE \(due(dialect)) AND g.refresh_salt IS NOT NULL)
        """
    }

    static func bindings(_ policy: RetentionPolicy, at now: Date) -> [SQLValue] {
        let time = now.timeIntervalSince1970
        return [.integer(Int64(time - policy.familyGrace)),
                .integer(Int64(time - policy.redeemedCodeMargin - RetentionPolicy.maximumCodeLifetime)),
                .integer(Int64(RetentionPolicy.retryMargin)), .integer(Int64(RetentionPolicy.maximumAccessTokenLifetime))]
    }
}

extension PurgeRule {
    /// The single-table rules, in run order (the family rule runs between codes and sessions).
    static func rules(_ policy: RetentionPolicy, at now: Date, dialect: SQLDialect) -> (beforeFamilies: [PurgeRule], afterFamilies: [PurgeRule]) {
        let time = Int64(now.timeIntervalSince1970)
        let before = [
            // Redeemed or not, past expiry plus the replay margin: nothing can use it.
            PurgeRule(table: .authorizationCodes, scan: .expiryIndex,
                      candidates: "SELECT code_hash FROM authorization_codes WHERE expires_at <= ?3 ORDER BY expires_at LIMIT ?2",
                      delete: "DELETE FROM authorization_codes WHERE code_hash = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM authorization_codes WHERE expires_at <= ?3",
                      bindings: [.integer(time - Int64(policy.redeemedCodeMargin))], start: .text("")),
            // Never redeemed and expired: no grant for a replay to revoke (`redeem` answers "unknown" either way).
            PurgeRule(table: .authorizationCodes, scan: .expiryIndex,
                      candidates: """
                          SELECT code_hash FROM authorization_codes WHERE expires_at <= ?3 AND used_at IS NULL
                          ORDER BY expires_at LIMIT ?2
                          """,
                      delete: "DELETE FROM authorization_codes WHERE code_hash = ?1 AND expires_at <= ?3 AND used_at IS NULL",
                      countDue: "SELECT count(*) FROM authorization_codes WHERE expires_at <= ?3 AND used_at IS NULL AND expires_at > ?4",
                      bindings: [.integer(time), .integer(time - Int64(policy.redeemedCodeMargin))], start: .text("")),
            // Past expiry (valid while now < expires_at, as `find` reads it).
            PurgeRule(table: .loginTransactions, scan: .expiryIndex,
                      candidates: "SELECT id_hash FROM login_transactions WHERE expires_at <= ?3 ORDER BY expires_at LIMIT ?2",
                      delete: "DELETE FROM login_transactions WHERE id_hash = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM login_transactions WHERE expires_at <= ?3",
                      bindings: [.integer(time)], start: .text("")),
            // Past expiry; the primary key starts with the address, so each delete is a range of one address.
            PurgeRule(table: .oneTimeCodes, scan: .expiryIndex,
                      candidates: "SELECT email_key FROM one_time_codes WHERE expires_at <= ?3 ORDER BY expires_at LIMIT ?2",
                      delete: "DELETE FROM one_time_codes WHERE email_key = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM one_time_codes WHERE expires_at <= ?3",
                      bindings: [.integer(time)], start: .text("")),
            // Past expiry, consumed or not: either way it is no longer honoured (README "Native to web").
            PurgeRule(table: .sessionTransferTokens, scan: .expiryIndex,
                      candidates: "SELECT token_hash FROM session_transfer_tokens WHERE expires_at <= ?3 ORDER BY expires_at LIMIT ?2",
                      delete: "DELETE FROM session_transfer_tokens WHERE token_hash = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM session_transfer_tokens WHERE expires_at <= ?3",
                      bindings: [.integer(time)], start: .text("")),
        ]
        let sessionDue = """
            \(dialect.least("COALESCE(s.ended_at, s.expires_at)", "s.expires_at")) <= ?3
            AND NOT EXISTS (SELECT 1 FROM grants WHERE session_id = s.session_id)
            """
        let throttleDue = "t.window_started_at <= ?3 AND (t.locked_until IS NULL OR t.locked_until <= ?4)"
        let after = [
            PurgeRule(table: .sessions,
                      scan: .keyset(cursor: "SELECT MAX(session_id) FROM (SELECT session_id FROM sessions WHERE session_id > ?1 ORDER BY session_id LIMIT ?2) AS w"),
                      candidates: "SELECT s.session_id FROM sessions s WHERE s.session_id > ?1 AND s.session_id <= ?2 AND \(sessionDue)",
                      delete: "DELETE FROM sessions AS s WHERE s.session_id = ?1 AND \(sessionDue)",
                      countDue: "SELECT count(*) FROM sessions s WHERE \(sessionDue)",
                      bindings: [.integer(time - Int64(policy.sessionGrace))], start: .text(""), warm: ColdPages.session(dialect)),
            PurgeRule(table: .loginThrottle,
                      scan: .keyset(cursor: "SELECT MAX(key) FROM (SELECT key FROM login_throttle WHERE key > ?1 ORDER BY key LIMIT ?2) AS w"),
                      candidates: "SELECT t.key FROM login_throttle t WHERE t.key > ?1 AND t.key <= ?2 AND \(throttleDue)",
                      delete: "DELETE FROM login_throttle AS t WHERE t.key = ?1 AND \(throttleDue)",
                      countDue: "SELECT count(*) FROM login_throttle t WHERE \(throttleDue)",
                      bindings: [.integer(time - Int64(policy.throttleWindow)), .integer(time)], start: .text("")),
            PurgeRule(table: .revokedAccessTokens,
                      scan: .keyset(cursor: "SELECT MAX(jti) FROM (SELECT jti FROM revoked_access_tokens WHERE jti > ?1 ORDER BY jti LIMIT ?2) AS w"),
                      candidates: "SELECT jti FROM revoked_access_tokens WHERE jti > ?1 AND jti <= ?2 AND expires_at <= ?3",
                      delete: "DELETE FROM revoked_access_tokens WHERE jti = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM revoked_access_tokens WHERE expires_at <= ?3",
                      bindings: [.integer(time)], start: .text("")),
            // Every access token minted under the grant has expired (migration 0020).
            PurgeRule(table: .revokedGrants, scan: .expiryIndex,
                      candidates: "SELECT grant_id FROM revoked_grants WHERE expires_at <= ?3 ORDER BY expires_at LIMIT ?2",
                      delete: "DELETE FROM revoked_grants WHERE grant_id = ?1 AND expires_at <= ?3",
                      countDue: "SELECT count(*) FROM revoked_grants WHERE expires_at <= ?3",
                      bindings: [.integer(time)], start: .text("")),
            // Ids grow with time, so the old events are a prefix: the scan stops at the first window
            // with none due. (An event written while the clock stood earlier waits for its window.)
            PurgeRule(table: .auditEvents,
                      scan: .oldestFirst(cursor: "SELECT MAX(id) FROM (SELECT id FROM audit_events WHERE id > ?1 ORDER BY id LIMIT ?2) AS w"),
                      candidates: "SELECT id FROM audit_events WHERE id > ?1 AND id <= ?2 AND time < ?3",
                      delete: "DELETE FROM audit_events WHERE id = ?1 AND time < ?3",
                      countDue: "SELECT count(*) FROM audit_events WHERE time < ?3",
                      bindings: [.integer(time - Int64(policy.auditRetention))], start: .integer(0), warm: ColdPages.auditEvent(dialect)),
            // Sent or given up, past the retention; pending rows are never purged (they hold no
            // expiry: the sender fails them after email_max_age, and then they count from there).
            PurgeRule(table: .mailOutbox, scan: .expiryIndex,
                      candidates: """
                          SELECT id FROM mail_outbox WHERE status IN ('sent', 'failed') AND finished_at <= ?3
                          ORDER BY finished_at LIMIT ?2
                          """,
                      delete: "DELETE FROM mail_outbox WHERE id = ?1 AND status IN ('sent', 'failed') AND finished_at <= ?3",
                      countDue: "SELECT count(*) FROM mail_outbox WHERE status IN ('sent', 'failed') AND finished_at <= ?3",
                      bindings: [.integer(time - Int64(policy.mailRetention))], start: .integer(0)),
        ]
        return (before, after)
    }
}
