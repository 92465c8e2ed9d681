import Testing

@Test func placeholder_ServerTests() {}
