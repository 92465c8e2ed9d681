// Placeholder until the Model layer lands.
