import FoundationEssentials

/// One refresh token of a token family (a `Grant`), stored only as the digest of its value.
///
/// Rotation marks a token `rotatedAt` and records its `successorHash`; the successor keeps the
/// family's original scope and absolute expiry.
public struct RefreshToken: Sendable, Equatable {
    /// Digest of the token value; the value itself is never stored.
    public var tokenHash: String
    /// The token family.
    public var grantID: String
    public var clientID: String
    public var userID: String
    /// Space-separated scopes of the family (never narrowed by a refresh).
    public var scope: String
    public var issuedAt: Date
    /// The family's absolute expiry, counted from its first issue.
    public var expiresAt: Date
    /// For the inactivity lifetime: the issue time, or when it was last exchanged.
    public var lastUsedAt: Date
    public var rotatedAt: Date?
    public var successorHash: String?
    public var revokedAt: Date?
    /// Its place in the family (0 for the first token). Set on a token whose value names it
    /// (`RefreshTokenKey.position`), which is then stored to be found there; nil on insert for a
    /// token found by its digest alone. A stored token read back always has it.
    public var generation: Int?
    /// Set on a token of a family stored as one row (migration 0017, `RefreshTokenKey.family`): the
    /// family's random salt, which the token's MAC covers. Such a token's `tokenHash` is its name
    /// (`RefreshTokenKey.name`), not a digest: nothing secret of it is stored.
    public var familySalt: [UInt8]?

    public init(tokenHash: String, grantID: String, clientID: String, userID: String, scope: String, issuedAt: Date,
                expiresAt: Date, lastUsedAt: Date? = nil, rotatedAt: Date? = nil, successorHash: String? = nil,
                revokedAt: Date? = nil, generation: Int? = nil, familySalt: [UInt8]? = nil) {
        self.tokenHash = tokenHash
        self.familySalt = familySalt
        self.generation = generation
        self.grantID = grantID
        self.clientID = clientID
        self.userID = userID
        self.scope = scope
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt ?? issuedAt
        self.rotatedAt = rotatedAt
        self.successorHash = successorHash
        self.revokedAt = revokedAt
    }

    /// Neither exchanged nor revoked (expiry is the caller's check).
    public var isUnused: Bool { rotatedAt == nil && revokedAt == nil }

    /// The same token in the same state; `generation` is left out, as a token built before it was
    /// stored does not know it yet (the digest already names the token).
    public static func == (left: RefreshToken, right: RefreshToken) -> Bool {
        left.tokenHash == right.tokenHash && left.grantID == right.grantID && left.clientID == right.clientID
            && left.userID == right.userID && left.scope == right.scope && left.issuedAt == right.issuedAt
            && left.expiresAt == right.expiresAt && left.lastUsedAt == right.lastUsedAt && left.rotatedAt == right.rotatedAt
            && left.successorHash == right.successorHash && left.revokedAt == right.revokedAt
    }
}

/// What presenting a refresh token found, decided in one atomic step.
public enum RefreshRotation: Sendable, Equatable {
    /// First use: the presented token is now rotated and `successor` was stored.
    case rotated(presented: RefreshToken, successor: RefreshToken)
    /// A retry inside the overlap window: the presented token was rotated to exactly this
    /// successor within the reuse window and the successor is still unused.
    /// Nothing changed.
    case retried(presented: RefreshToken, successor: RefreshToken)
    /// Reuse of a rotated token (outside the window, or its successor was already used, or the
    /// window is off): the store has revoked the whole family in the same transaction.
    case reused(RefreshToken)
    /// The token (or, for a retry, its successor) was revoked.
    case revoked(RefreshToken)
    case unknown
}

/// How a presented refresh token is looked up: at the place in its family its value names, where
/// the stored digest must then match (tokens issued since migration 0015), or by its digest alone
/// (tokens issued before, and values that name no place).
public struct RefreshTokenKey: Sendable, Hashable {
    public struct Position: Sendable, Hashable {
        public let grantID: String
        public let generation: Int

        public init(grantID: String, generation: Int) {
            self.grantID = grantID
            self.generation = generation
        }
    }

    /// SHA-256 hex of the whole presented value; for a family token (`inFamilyRow`), its name.
    public let tokenHash: String
    public let position: Position?
    /// The token belongs to a family stored as one row (`rt2.…`, migration 0017): found at its
    /// family's row, its MAC checked by the protocol core, which alone holds the key.
    public let inFamilyRow: Bool

    public init(tokenHash: String, position: Position? = nil) {
        self.tokenHash = tokenHash
        self.position = position
        inFamilyRow = false
    }

    /// The token at `generation` of the one-row family `grantID`.
    public static func family(grantID: String, generation: Int) -> RefreshTokenKey {
        RefreshTokenKey(name: name(grantID: grantID, generation: generation), position: Position(grantID: grantID, generation: generation))
    }

    private init(name: String, position: Position) {
        tokenHash = name
        self.position = position
        inFamilyRow = true
    }

    /// A family token's name: what stands in its `tokenHash` and its predecessor's `successorHash`.
    /// Public knowledge (the value's first three parts), never a secret.
    public static func name(grantID: String, generation: Int) -> String { "rt2.\(grantID).\(generation)" }

    /// The key a deleted user's tombstone is found under (`deleted_user_refresh_tokens`): a one-row
    /// family's tokens share one, named by their grant; older tokens have their digest.
    public var tombstone: String {
        guard inFamilyRow, let position else { return tokenHash }
        return Self.tombstone(grantID: position.grantID)
    }

    public static func tombstone(grantID: String) -> String { "family." + grantID }

    /// Whether `token` is the one this key names: the same digest, and the same place when the key names one.
    public func matches(_ token: RefreshToken) -> Bool {
        guard token.tokenHash == tokenHash else { return false }
        guard let position else { return true }
        return token.grantID == position.grantID && token.generation == position.generation
    }
}

public protocol RefreshTokenStore: Sendable {
    /// Throws `.alreadyExists` for a taken hash (or, for a token with a `generation`, a taken place).
    func insert(_ token: RefreshToken) throws(StorageError)
    func find(_ key: RefreshTokenKey) throws(StorageError) -> RefreshToken?
    /// In ONE atomic step (SQLite: one `BEGIN IMMEDIATE` transaction): if `tokenHash` is unused,
    /// marks it rotated at `time` to `successor` and inserts `successor` (all or nothing); otherwise
    /// asks `judge` what presenting it means (a retry, a reuse, a revocation). On `.reused` the same
    /// transaction revokes the family: its grant (reason "refresh token reused") and every refresh
    /// token of it. Of concurrent callers exactly one sees `.rotated`.
    func rotate(_ key: RefreshTokenKey, successor: RefreshToken, judge: any RefreshReuseJudge, at time: Date) throws(StorageError) -> RefreshRotation
    /// Marks every not yet revoked token of the family revoked at `time`.
    func revokeFamily(grantID: String, at time: Date) throws(StorageError)
    /// Tokens that could still be exchanged at `time` (unused, unexpired, grant not revoked), by session id,
    /// for the user's sessions.
    func liveCountsBySession(userID: String, at time: Date) throws(StorageError) -> [String: Int]
    /// Whether an unknown token was issued to a user who has since been deleted (and would still be valid).
    func belongedToDeletedUser(tokenHash: String) throws(StorageError) -> Bool
}

extension RefreshTokenStore {
    /// Stores that forget deleted users' tokens say no.
    public func belongedToDeletedUser(tokenHash: String) throws(StorageError) -> Bool { false }

    /// A token found by its digest alone (issued before migration 0015, or stored without a place).
    public func find(tokenHash: String) throws(StorageError) -> RefreshToken? {
        try find(RefreshTokenKey(tokenHash: tokenHash))
    }

    public func rotate(tokenHash: String, successor: RefreshToken, judge: any RefreshReuseJudge,
                       at time: Date) throws(StorageError) -> RefreshRotation {
        try rotate(RefreshTokenKey(tokenHash: tokenHash), successor: successor, judge: judge, at: time)
    }
}

extension RefreshRotation {
    /// The longest overlap window an application may configure, in seconds (the reuse rule and
    /// maintenance both rely on it).
    public static let maximumReuseInterval = 60
}

/// The reuse rule of refresh rotation, which the protocol core owns (`OIDC/Token/RefreshReuseRule.swift`)
/// and a store applies inside its rotation transaction to a token that was already rotated or revoked.
public protocol RefreshReuseJudge: Sendable {
    /// `storedSuccessor` is the token the presented one's `successorHash` names, if any.
    func outcome(presented: RefreshToken, storedSuccessor: RefreshToken?, expectedSuccessorHash: String, at time: Date) -> RefreshRotation
}

/// A refresh token with its family's grant, user and session, read as one snapshot.
public struct RefreshTokenFamily: Sendable {
    public var token: RefreshToken
    public var grant: Grant?
    public var user: User?
    /// The grant's session, if it has one, it still exists and it was asked for.
    public var session: Session?

    public init(token: RefreshToken, grant: Grant?, user: User?, session: Session?) {
        self.token = token
        self.grant = grant
        self.user = user
        self.session = session
    }
}

/// Reads a refresh token's family in one step (SQLite: one read transaction instead of four).
public protocol RefreshTokenFamilyReader: Sendable {
    /// nil when no token matches the key. The session is read only when `includingSession` is true:
    /// only an application whose refresh tokens end with the session needs it, and at a million
    /// sessions each read of it is a descent through two more B-trees (issue #18).
    func family(_ key: RefreshTokenKey, includingSession: Bool) throws(StorageError) -> RefreshTokenFamily?
}

extension RefreshTokenFamilyReader {
    public func family(tokenHash: String) throws(StorageError) -> RefreshTokenFamily? {
        try family(RefreshTokenKey(tokenHash: tokenHash), includingSession: true)
    }
}
