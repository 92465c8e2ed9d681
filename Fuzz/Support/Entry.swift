// Shared by every harness in Fuzz/: the libFuzzer entry point and the invariant check.
// scripts/fuzz compiles this file into each target beside its Harness.swift.

#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer calls this C symbol once per input; each harness defines `fuzz(_:)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzz(input)
    return 0
}

/// Stops the run when an invariant breaks; libFuzzer then saves the input as a reproducer.
/// The message goes to stderr first, since a trap alone says nothing about which rule failed.
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    let text = "invariant failed at \(file):\(line): \(message())\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    abort()
}

@_silgen_name("__lsan_disable") private func lsanDisable()
@_silgen_name("__lsan_enable") private func lsanEnable()

/// Builds a value that lives for the whole run (fixed keys), hidden from LeakSanitizer.
/// Swift keeps enum case tags in a payload pointer's spare bits, so LSan cannot follow such a
/// pointer from a global and reports what it points to as leaked although it is reachable.
func fixture<T>(_ make: () throws -> T) rethrows -> T {
    lsanDisable()
    defer { lsanEnable() }
    return try make()
}

/// A deterministic 64-bit FNV-1a hash, for choosing split points and probes from the input itself.
func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
    }
    return hash
}

/// Bytes as a Swift literal-ish string for invariant messages (printable ASCII kept, the rest escaped).
func describe(_ bytes: some Sequence<UInt8>) -> String {
    var out = "\""
    for byte in bytes {
        switch byte {
        case 0x5C: out += "\\\\"
        case 0x22: out += "\\\""
        case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789abcdef".unicodeScalars)
            out += "\\x"
            out.unicodeScalars.append(hex[Int(byte >> 4)])
            out.unicodeScalars.append(hex[Int(byte & 15)])
        }
    }
    return out + "\""
}
