// Placeholder until the Crypto layer lands.
