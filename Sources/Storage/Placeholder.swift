// Placeholder until the Storage layer lands.
