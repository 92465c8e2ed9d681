extension StringProtocol {
    /// Drops tabs and Unicode space separators (Zs) at both ends, but not line breaks: what
    /// Foundation's `trimmingCharacters(in: .whitespaces)` did, which FoundationEssentials lacks.
    public func trimmingWhitespace() -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

private extension Unicode.Scalar {
    /// ASCII (headers, ids, most text) is decided without a Unicode table lookup: of it only the space is Zs.
    var isWhitespace: Bool {
        isASCII ? self == " " || self == "\t" : properties.generalCategory == .spaceSeparator
    }
}
