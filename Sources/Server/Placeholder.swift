// Placeholder until the Server layer lands.
