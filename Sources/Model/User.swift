import FoundationEssentials

/// A person who signs in; `userID` is the `sub` claim.
public struct User: Sendable, Equatable {
    public var userID: String
    public var email: String
    public var emailVerified: Bool
    /// Self-describing hash (Argon2id; scrypt or an imported bcrypt hash until the next login); nil: no password.
    public var passwordHash: String?
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    public var picture: String?
    public var blocked: Bool
    public var loginsCount: Int
    public var lastLoginAt: Date?
    /// Auth0's `user_metadata`: strings the user may edit (signup, `PATCH /api/v2/users/{id}`).
    public var userMetadata: [String: String]
    public var createdAt: Date
    public var updatedAt: Date
    /// The upstream connection that created this user; nil for the database connection (passwords).
    public var connection: String?

    public init(userID: String, email: String, emailVerified: Bool = false, passwordHash: String? = nil,
                name: String? = nil, givenName: String? = nil, familyName: String? = nil, nickname: String? = nil,
                picture: String? = nil, blocked: Bool = false, loginsCount: Int = 0, lastLoginAt: Date? = nil,
                userMetadata: [String: String] = [:], createdAt: Date, updatedAt: Date? = nil, connection: String? = nil) {
        self.connection = connection
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.nickname = nickname
        self.picture = picture
        self.blocked = blocked
        self.loginsCount = loginsCount
        self.lastLoginAt = lastLoginAt
        self.userMetadata = userMetadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// The key that makes emails unique regardless of case.
    public static func emailKey(_ email: String) -> String { email.lowercased() }

    /// The key that makes emails unique within a connection (Auth0): the database connection's is
    /// `emailKey`; an upstream connection's carries its name and U+001F first, a character no email holds.
    public static func emailKey(_ email: String, connection: String?) -> String {
        guard let connection else { return emailKey(email) }
        return connection + "\u{1F}" + emailKey(email)
    }

    /// A name no upstream connection may take (`UpstreamConnection.isValidName`).
    public static let databaseConnectionMarker = "database"

    /// This user's email key.
    public var emailKey: String { Self.emailKey(email, connection: connection) }
}
