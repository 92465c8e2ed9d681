/// Request identifiers: 128 bits as 32 lowercase hex characters.
///
/// Each event loop owns a generator seeded from the system CSPRNG and stepped with SplitMix64, avoiding a
/// getrandom(2) call per request. IDs are for correlation only and must never be used as secrets.
struct RequestIDGenerator {
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    private mutating func nextWord() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func next() -> String {
        let high = nextWord()
        let low = nextWord()
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for index in 0..<16 {
                buffer[index] = digits.utf8Start[Int((high >> (60 - UInt64(index) * 4)) & 15)]
                buffer[16 + index] = digits.utf8Start[Int((low >> (60 - UInt64(index) * 4)) & 15)]
            }
            return 32
        }
    }
}
