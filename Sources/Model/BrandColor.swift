import Glibc

/// An application's accent colour for its login page (`#rrggbb`), and the text colour that reads on it.
///
/// Contrast follows WCAG 2.2's definitions (relative luminance of sRGB, ratio (L1 + 0.05) / (L2 + 0.05));
/// AA asks 4.5:1 for body text. White text is kept when it reaches that; otherwise black, which then
/// always does (every colour reaches at least 4.58:1 against white or black).
public struct BrandColor: Sendable, Equatable {
    /// Lower-case `#rrggbb`.
    public let hex: String
    let red: Int, green: Int, blue: Int

    /// Parses `#RRGGBB` (either case); nil for anything else (names, `#rgb`, alpha).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#"),
              let value = Int(String(decoding: bytes[1...], as: UTF8.self), radix: 16),
              bytes[1...].allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }) else { return nil }
        red = (value >> 16) & 0xFF
        green = (value >> 8) & 0xFF
        blue = value & 0xFF
        hex = text.lowercased()
    }

    static let white = BrandColor("#ffffff")!
    static let black = BrandColor("#000000")!

    /// WCAG relative luminance, 0 (black) to 1 (white).
    public var luminance: Double {
        func channel(_ value: Int) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// The contrast ratio between two colours, 1 to 21.
    public func contrast(with other: BrandColor) -> Double {
        let (a, b) = (luminance, other.luminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// WCAG AA for normal text.
    public static let minimumTextContrast = 4.5

    /// Whether white text on this colour meets AA.
    public var readsWithWhiteText: Bool { contrast(with: .white) >= Self.minimumTextContrast }

    /// The text colour for buttons in this colour: white when it meets AA, else black.
    public var textColor: BrandColor { readsWithWhiteText ? .white : .black }
}
