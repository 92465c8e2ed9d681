import FoundationEssentials

/// An application (Auth0's term) that signs users in through Gatehouse.
public struct Client: Sendable, Equatable {
    public enum ApplicationType: String, Sendable, CaseIterable {
        case native, spa, regular, m2m

        /// Native apps and SPAs cannot keep a secret (RFC 8252 §8.5).
        public var isPublic: Bool { self == .native || self == .spa }
    }

    /// How the client proves itself at the token endpoint (RFC 6749 §2.3, OIDC Core §9).
    public enum AuthMethod: String, Sendable, CaseIterable {
        case none
        case clientSecretPost = "client_secret_post"
        case clientSecretBasic = "client_secret_basic"
    }

    /// Auth0's `grant_types` values.
    public enum GrantType: String, Sendable, CaseIterable {
        case authorizationCode = "authorization_code"
        case refreshToken = "refresh_token"
        case clientCredentials = "client_credentials"
        case password = "password"
        case passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        /// A one-time code sent by email (`/passwordless/start`), exchanged at the token endpoint.
        case passwordlessOTP = "http://auth0.com/oauth/grant-type/passwordless/otp"
    }

    public var clientID: String
    public var name: String
    public var type: ApplicationType
    /// Self-describing password hash of the secret; nil for public clients.
    public var secretHash: String?
    public var authMethods: [AuthMethod]
    public var grantTypes: [GrantType]
    /// `RS256` (default; Auth0.swift accepts nothing else) or `ES256`.
    public var idTokenAlgorithm: String
    public var accessTokenLifetime: Int
    public var idTokenLifetime: Int
    public var refreshAbsoluteLifetime: Int
    public var refreshIdleLifetime: Int
    public var refreshReuseInterval: Int
    public var refreshSurvivesLogout: Bool
    public var introspectionEnabled: Bool
    /// Allowed Callback URLs, in the operator's order.
    public var callbacks: [String]
    /// Allowed Logout URLs.
    public var logoutURLs: [String]
    /// Allowed Web Origins (CORS).
    public var webOrigins: [String]
    public var appleTeamID: String?
    public var bundleID: String?
    public var androidPackage: String?
    public var androidSHA256: [String]
    /// People may create their own account (login page "Sign up", `/dbconnections/signup`).
    public var signupEnabled: Bool
    /// A new address must be confirmed with a code before its first sign-in.
    public var requireEmailVerification: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// How the `updated_at` claim is written in this app's ID tokens and /userinfo.
    public var updatedAtFormat: UpdatedAtFormat
    /// Login-page branding (Auth0 Universal Login's logo and primary colour): an https image URL.
    public var logoURL: String?
    /// Login-page branding: the primary button's colour (`BrandColor`, `#rrggbb`).
    public var accentColor: String?
    /// Native-to-web session transfer: issuing and receiving (off by default).
    public var sessionTransfer: SessionTransferPolicy

    /// `iso` is what Auth0 sends (an ISO 8601 string, which Auth0.swift reads); `number` is OpenID
    /// Connect Core §5.1's seconds since 1970, which strict OpenID libraries require.
    public enum UpdatedAtFormat: String, Sendable, CaseIterable {
        case iso, number
    }

    public var isConfidential: Bool { !type.isPublic }

    public init(clientID: String, name: String, type: ApplicationType, secretHash: String? = nil,
                authMethods: [AuthMethod]? = nil, grantTypes: [GrantType]? = nil, idTokenAlgorithm: String = "RS256",
                accessTokenLifetime: Int = 86_400, idTokenLifetime: Int = 36_000,
                refreshAbsoluteLifetime: Int = 2_592_000, refreshIdleLifetime: Int = 1_296_000, refreshReuseInterval: Int = 10,
                refreshSurvivesLogout: Bool = true, introspectionEnabled: Bool = false,
                callbacks: [String] = [], logoutURLs: [String] = [], webOrigins: [String] = [],
                appleTeamID: String? = nil, bundleID: String? = nil, androidPackage: String? = nil, androidSHA256: [String] = [],
                signupEnabled: Bool = false, requireEmailVerification: Bool = false, createdAt: Date, updatedAt: Date? = nil,
                updatedAtFormat: UpdatedAtFormat = .iso, logoURL: String? = nil, accentColor: String? = nil,
                sessionTransfer: SessionTransferPolicy = SessionTransferPolicy()) {
        self.clientID = clientID
        self.name = name
        self.type = type
        self.secretHash = secretHash
        self.authMethods = authMethods ?? Client.defaultAuthMethods(for: type)
        self.grantTypes = grantTypes ?? Client.defaultGrantTypes(for: type)
        self.idTokenAlgorithm = idTokenAlgorithm
        self.accessTokenLifetime = accessTokenLifetime
        self.idTokenLifetime = idTokenLifetime
        self.refreshAbsoluteLifetime = refreshAbsoluteLifetime
        self.refreshIdleLifetime = refreshIdleLifetime
        self.refreshReuseInterval = refreshReuseInterval
        self.refreshSurvivesLogout = refreshSurvivesLogout
        self.introspectionEnabled = introspectionEnabled
        self.callbacks = callbacks
        self.logoutURLs = logoutURLs
        self.webOrigins = webOrigins
        self.appleTeamID = appleTeamID
        self.bundleID = bundleID
        self.androidPackage = androidPackage
        self.androidSHA256 = androidSHA256
        self.signupEnabled = signupEnabled
        self.requireEmailVerification = requireEmailVerification
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.updatedAtFormat = updatedAtFormat
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.sessionTransfer = sessionTransfer
    }

    /// Auth0's defaults by type: public clients authenticate with nothing, confidential ones with a secret.
    public static func defaultAuthMethods(for type: ApplicationType) -> [AuthMethod] {
        type.isPublic ? [.none] : [.clientSecretBasic, .clientSecretPost]
    }

    /// Auth0's defaults by type, minus implicit.
    public static func defaultGrantTypes(for type: ApplicationType) -> [GrantType] {
        type == .m2m ? [.clientCredentials] : [.authorizationCode, .refreshToken]
    }
}
