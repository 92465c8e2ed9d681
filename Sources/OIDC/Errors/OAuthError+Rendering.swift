import FoundationEssentials
import Model

extension OAuthError {
    /// `{"error":…,"error_description":…}`: compact, sorted keys, slashes unescaped (RFC 6749 §5.2).
    public func jsonBody() -> [UInt8] {
        JSONBody.encode(["error": .string(code.rawValue), "error_description": .string(description)])
    }

    /// Which challenge a 401 carries.
    public enum Challenge: Sendable {
        /// Token, revocation, introspection endpoints: client authentication (RFC 6749 §5.2).
        case basic
        /// Userinfo and other resources (RFC 6750 §3).
        case bearer
    }

    /// The `WWW-Authenticate` value for this error, or nil when the response needs none.
    ///
    /// Basic: only for `invalid_client`. Bearer: for `invalid_token` with the error attributes;
    /// `tokenPresented: false` (no credentials at all) gives the bare challenge RFC 6750 §3.1 asks for.
    public func wwwAuthenticate(_ challenge: Challenge, realm: String, tokenPresented: Bool = true) -> String? {
        let realmPart = "realm=\"\(Self.quotedStringSafe(realm))\""
        switch challenge {
        case .basic:
            return code == .invalidClient ? "Basic \(realmPart)" : nil
        case .bearer:
            guard code == .invalidToken || code == .invalidRequest || code == .invalidScope else { return nil }
            if !tokenPresented { return "Bearer \(realmPart)" }
            return "Bearer \(realmPart), error=\"\(code.rawValue)\", error_description=\"\(Self.quotedStringSafe(description))\""
        }
    }

    /// Keeps a header quoted-string safe: drops `"`, `\` and control characters.
    static func quotedStringSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" && $0.isASCII
        }))
    }

    /// Maps a storage failure: `unavailable` → `temporarily_unavailable` (503), else `server_error`.
    public init(storage error: StorageError) {
        if case .unavailable = error {
            self.init(.temporarilyUnavailable, "the service is temporarily unavailable", detail: error.description)
        } else {
            self.init(.serverError, "internal error", detail: error.description)
        }
    }
}
