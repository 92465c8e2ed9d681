// Placeholder until the Admin layer lands.
