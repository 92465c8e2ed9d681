import JOSE
import Model

/// Whether a `client_credentials` token's grant still backs it, for the readers of such tokens:
/// introspection, revocation and the Management API.
///
/// Such a grant has no row (`TokenEndpoint.clientCredentialsGrant`): it is live until revoked
/// (`revoked_grants`, until the token's `exp`) or until its application is deleted. A grant issued
/// before machine grants stopped being stored keeps its row and is judged by it, as before.
enum MachineGrants {
    /// A verified JWT's claims name a `client_credentials` token of `clientID` (RFC 9068 `gty`; its
    /// subject is the application itself).
    static func isMachineToken(_ claims: [String: JSONValue], clientID: String) -> Bool {
        claims["gty"]?.stringValue == "client-credentials" && claims["sub"]?.stringValue.map { TokenInspection.same($0, clientID) } == true
    }

    static func isLive(grantID: String, clientID: String, grants: any GrantStore, clients: any ClientStore) throws(StorageError) -> Bool {
        if let stored = try grants.find(grantID: grantID) {
            return stored.revokedAt == nil && stored.userID == nil && TokenInspection.same(stored.clientID, clientID)
        }
        guard try !grants.isMachineGrantRevoked(grantID: grantID) else { return false }
        return try clients.find(clientID: clientID) != nil
    }
}
