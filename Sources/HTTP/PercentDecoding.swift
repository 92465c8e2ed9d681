/// Percent-decoding shared by request paths and form bodies; decodes exactly once.
enum PercentDecoding {
    enum Failure: Error, Equatable {
        case badEscape
        case nul
        case invalidUTF8
    }

    /// Decodes `%XX` once (and `+` as space when `plusIsSpace`), refusing bad escapes and invalid UTF-8.
    static func decode<C: Collection<UInt8>>(_ bytes: C, plusIsSpace: Bool, allowNUL: Bool = true) throws(Failure) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        var plain = true
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == ASCII.percent {
                let first = bytes.index(after: index)
                guard first != bytes.endIndex else { throw .badEscape }
                let second = bytes.index(after: first)
                guard second != bytes.endIndex,
                      let high = ASCII.hexValue(bytes[first]), let low = ASCII.hexValue(bytes[second]) else { throw .badEscape }
                let decoded = UInt8(high << 4 | low)
                if decoded == 0 && !allowNUL { throw .nul }
                out.append(decoded)
                plain = false
                index = bytes.index(after: second)
                continue
            }
            if plusIsSpace && byte == UInt8(ascii: "+") {
                out.append(ASCII.space)
            } else {
                if byte >= 0x80 { plain = false }
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        if plain { return String(decoding: out, as: UTF8.self) }  // Pure ASCII needs no validation.
        guard let text = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }
}
