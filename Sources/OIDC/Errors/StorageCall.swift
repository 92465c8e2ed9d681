import Model

/// Runs a storage call from the protocol core, mapping its failure once: `unavailable` becomes
/// `temporarily_unavailable` (503) and anything else `server_error` (`OAuthError(storage:)`).
func storage<T>(_ body: () throws(StorageError) -> T) throws(OAuthError) -> T {
    do {
        return try body()
    } catch {
        throw OAuthError(storage: error)
    }
}
