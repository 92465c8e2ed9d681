/// NUL-terminated parameter names with static lifetime.
///
/// `OSSL_PARAM_construct_*` and `OSSL_PARAM_BLD_push_*` keep the key
/// *pointer*, not a copy. A Swift string bridged to `const char *` is only
/// valid for the duration of one call, so names used that way live here.
enum ParamName {
    nonisolated(unsafe) static let bits = immortal("bits")
    nonisolated(unsafe) static let n = immortal("n")
    nonisolated(unsafe) static let e = immortal("e")
    nonisolated(unsafe) static let group = immortal("group")
    nonisolated(unsafe) static let pub = immortal("pub")
    nonisolated(unsafe) static let digest = immortal("digest")
    nonisolated(unsafe) static let sha256 = immortal("SHA256")

    private static func immortal(_ name: String) -> UnsafePointer<CChar> {
        let bytes = Array(name.utf8CString)
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        storage.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(storage)
    }
}
