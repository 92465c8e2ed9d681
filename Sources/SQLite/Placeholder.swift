// Placeholder until the SQLite layer lands.
