import Testing

@Test func placeholder_SQLiteTests() {}
