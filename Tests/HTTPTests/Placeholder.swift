import Testing

@Test func placeholder_HTTPTests() {}
