// Placeholder until the JOSE layer lands.
