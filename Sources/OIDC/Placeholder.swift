// Placeholder until the OIDC layer lands.
