import Testing

@Test func placeholder_CryptoTests() {}
