import Testing

@Test func placeholder_AdminTests() {}
