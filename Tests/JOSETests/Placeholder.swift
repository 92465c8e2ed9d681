import Testing

@Test func placeholder_JOSETests() {}
