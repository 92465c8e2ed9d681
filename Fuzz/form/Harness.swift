// Fuzzes FormCodec and PercentDecoding (Sources/HTTP): application/x-www-form-urlencoded
// bodies and query strings (the WHATWG URL standard's form rules, as RFC 6749 §4.1.3 uses them).
//
// Invariants: decoding never yields invalid UTF-8; encode(decode(x)) decodes to the same
// pairs byte for byte and is a fixed point of encode∘decode; the percent-decoder decodes
// exactly once, never decodes %00 when told not to, and only fails for the reasons it names.

@testable import HTTP

func fuzz(_ input: [UInt8]) {
    checkForm(String(decoding: input, as: UTF8.self))
    checkPercentDecoding(input, plusIsSpace: true)
    checkPercentDecoding(input, plusIsSpace: false)
}

func checkForm(_ text: String) {
    let pairs: [(String, String)]
    do {
        pairs = try FormCodec.decode(text)
    } catch {
        invariant(text.utf8.contains(ASCII.percent), "\(error) without a % in \(describe(text.utf8))")
        return
    }
    let ampersands = text.utf8.filter { $0 == UInt8(ascii: "&") }.count
    invariant(pairs.count <= ampersands + 1, "\(pairs.count) pairs from \(ampersands) separators")

    // What we send (e.g. form_post pages, redirects) must decode to exactly what we meant.
    let encoded = FormCodec.encode(pairs)
    invariant(encoded.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "encoded form is not printable ASCII: \(describe(encoded.utf8))")
    let again: [(String, String)]
    do {
        again = try FormCodec.decode(encoded)
    } catch {
        invariant(false, "our own encoding \(describe(encoded.utf8)) does not decode: \(error)")
        return
    }
    invariant(bytes(again) == bytes(pairs), "decode(encode(pairs)) differs for \(describe(text.utf8))")
    invariant(FormCodec.encode(again) == encoded, "encoding is not a fixed point for \(describe(text.utf8))")
}

/// Pairs as bytes, so canonically equivalent but different strings do not compare equal.
func bytes(_ pairs: [(String, String)]) -> [[UInt8]] {
    pairs.flatMap { [Array($0.0.utf8), Array($0.1.utf8)] }
}

func checkPercentDecoding(_ input: [UInt8], plusIsSpace: Bool) {
    let decoded: String
    do throws(PercentDecoding.Failure) {
        decoded = try PercentDecoding.decode(input, plusIsSpace: plusIsSpace, allowNUL: false)
    } catch {
        switch error {
        case .badEscape: invariant(input.contains(ASCII.percent), "badEscape without a %")
        case .nul: invariant(hasEscapedNUL(input), "nul without %00 in \(describe(input))")
        case .invalidUTF8:
            invariant(input.contains(ASCII.percent) || input.contains { $0 >= 0x80 }, "invalidUTF8 from plain ASCII \(describe(input))")
        }
        return
    }
    let out = Array(decoded.utf8)
    // allowNUL: false refuses %00; a raw NUL byte passes through (callers refuse controls themselves).
    invariant(out.filter { $0 == 0 }.count == input.filter { $0 == 0 }.count, "NUL decoded though refused")
    invariant(out.count <= input.count, "decoding grew \(input.count) bytes to \(out.count)")
    // Without escapes nothing but `+` may change: decoding happens once, never twice.
    let plain = plusIsSpace ? input.map { $0 == UInt8(ascii: "+") ? ASCII.space : $0 } : input
    if !input.contains(ASCII.percent) {
        invariant(out == plain, "unescaped input changed: \(describe(input)) -> \(describe(out))")
    }
    // Each %XX is three bytes in, one byte out.
    let escapes = input.filter { $0 == ASCII.percent }.count
    invariant(out.count == input.count - 2 * escapes, "\(escapes) escapes but \(input.count) -> \(out.count) bytes")
}

func hasEscapedNUL(_ input: [UInt8]) -> Bool {
    guard input.count >= 3 else { return false }
    return (0...(input.count - 3)).contains { input[$0] == ASCII.percent && input[$0 + 1] == 0x30 && input[$0 + 2] == 0x30 }
}
