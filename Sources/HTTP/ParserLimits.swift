/// Limits enforced while parsing; past each, the parser fails with the status named beside it.
public struct ParserLimits: Sendable, Equatable {
    /// Request line alone (414).
    public var maxRequestLineBytes = 8_192
    /// Request line plus header fields (431); trailer sections get the same (400).
    public var maxHeaderBytes = 16_384
    /// Header fields (431).
    public var maxHeaderCount = 100
    /// Declared or received body (413).
    public var maxBodyBytes = 1_048_576
    /// One chunk-size line with its extensions (400).
    public var maxChunkLineBytes = 4_096

    public init() {}
}
