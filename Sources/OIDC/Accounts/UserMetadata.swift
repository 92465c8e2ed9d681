/// Bounds on Auth0's `user_metadata` as Gatehouse keeps it: a flat object of strings, small
/// enough for a token claim and a row.
public enum UserMetadata {
    public static let maximumKeys = 16
    public static let maximumKeyLength = 64
    public static let maximumValueLength = 512
    public static let maximumTotalBytes = 4096

    /// Refuses metadata over the bounds, with which bound.
    public static func validate(_ metadata: [String: String]) throws(AccountError) {
        guard metadata.count <= maximumKeys else { throw .invalidRequest("user_metadata has more than \(maximumKeys) keys") }
        var total = 0
        for (key, value) in metadata {
            guard !key.isEmpty, key.count <= maximumKeyLength else {
                throw .invalidRequest("user_metadata keys must have 1 to \(maximumKeyLength) characters")
            }
            guard value.count <= maximumValueLength else {
                throw .invalidRequest("user_metadata values must have at most \(maximumValueLength) characters")
            }
            total += key.utf8.count + value.utf8.count
        }
        guard total <= maximumTotalBytes else { throw .invalidRequest("user_metadata is larger than \(maximumTotalBytes) bytes") }
    }
}
