-- 0011_connections: upstream identity providers (README "Upstream connections"; Storage/SQLiteConnectionStore.swift),
-- the ones each application offers, and the upstream identities linked to users.

-- A connection: an upstream OpenID provider (strategy apple, google or oidc). The client secret and the
-- Apple `.p8` key are sealed with AES-256-GCM under a key derived from the key-encryption key, bound to
-- the connection's name and what they are, as the mail outbox seals its values; never stored in clear.
CREATE TABLE connections (
    name                    TEXT PRIMARY KEY,
    strategy                TEXT NOT NULL CHECK (strategy IN ('apple', 'google', 'oidc')),
    client_id               TEXT NOT NULL,
    sealed_client_secret    BLOB,
    sealed_private_key      BLOB,
    team_id                 TEXT,
    key_id                  TEXT,
    discovery_url           TEXT,
    authorize_url           TEXT,
    token_url               TEXT,
    jwks_url                TEXT,
    revoke_url              TEXT,
    issuer                  TEXT,
    hosted_domain           TEXT,
    scopes                  TEXT NOT NULL DEFAULT 'openid profile email',  -- space-separated
    native_audiences        TEXT NOT NULL DEFAULT '',                      -- space-separated
    link_by_verified_email  INTEGER NOT NULL DEFAULT 0,
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL
) WITHOUT ROWID;

-- The connections an application's login page offers, in the order shown.
CREATE TABLE client_connections (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    connection  TEXT NOT NULL REFERENCES connections (name) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    PRIMARY KEY (client_id, connection)
) WITHOUT ROWID;
CREATE INDEX client_connections_by_connection ON client_connections (connection);

-- The connection a user belongs to: NULL for the database connection (passwords), else the upstream
-- connection that created them. As in Auth0 an email is unique within a connection, not across them:
-- `users.email_key` stays UNIQUE, and a user of an upstream connection gets the key
-- "<connection>" + U+001F + lower-cased email (no email holds a control character), so the database
-- connection's keys are unchanged and keep their uniqueness. `email_lookup` is the lower-cased email
-- of every user, for linking by a verified email across connections.
ALTER TABLE users ADD COLUMN connection TEXT REFERENCES connections (name) ON DELETE RESTRICT;
ALTER TABLE users ADD COLUMN email_lookup TEXT;
UPDATE users SET email_lookup = email_key;
CREATE INDEX users_by_email_lookup ON users (email_lookup);

-- An upstream identity: the upstream `sub` at a connection, linked to one user. `profile` is the
-- verified ID token's claims as JSON (name, email, email_verified, …) from the latest login.
CREATE TABLE identities (
    connection  TEXT NOT NULL REFERENCES connections (name) ON DELETE CASCADE,
    subject     TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    profile     TEXT NOT NULL DEFAULT '{}',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (connection, subject)
) WITHOUT ROWID;
CREATE INDEX identities_by_user ON identities (user_id);
