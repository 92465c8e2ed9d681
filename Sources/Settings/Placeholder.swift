// Placeholder until the Settings layer lands.
