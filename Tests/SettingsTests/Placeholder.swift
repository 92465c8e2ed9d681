import Testing

@Test func placeholder_SettingsTests() {}
