-- 0001_initial (PostgreSQL): the schema of SQLite migrations 0001–0013 in one step.
-- No PostgreSQL database predates the backend, so its history starts with the schema as it
-- stood at 0013; 0002–0013 are empty here and keep the numbers in step with Migrations/*.sql,
-- so a later NNNN means the same change on both backends. Never edit after release.
-- Types mirror SQLite's storage classes so one store SQL serves both: INTEGER columns are
-- BIGINT (Unix seconds, 0/1 flags), BLOB is BYTEA, AUTOINCREMENT is an identity column.

-- SQLite's instr and group_concat, so the few store statements that use them run unchanged.
CREATE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE STRICT AS 'SELECT strpos(haystack, needle)::BIGINT';
CREATE FUNCTION gatehouse_concat_step(state TEXT, value TEXT, separator TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE AS 'SELECT CASE WHEN value IS NULL THEN state WHEN state IS NULL THEN value ELSE state || separator || value END';
CREATE AGGREGATE group_concat(TEXT, TEXT) (SFUNC = gatehouse_concat_step, STYPE = TEXT);

CREATE TABLE clients (
    client_id                   TEXT PRIMARY KEY,
    name                        TEXT NOT NULL,
    app_type                    TEXT NOT NULL CHECK (app_type IN ('native', 'spa', 'regular', 'm2m')),
    secret_hash                 TEXT,
    auth_methods                TEXT NOT NULL,
    grant_types                 TEXT NOT NULL,
    id_token_alg                TEXT NOT NULL DEFAULT 'RS256' CHECK (id_token_alg IN ('RS256', 'ES256')),
    access_token_lifetime       BIGINT NOT NULL DEFAULT 86400,
    id_token_lifetime           BIGINT NOT NULL DEFAULT 36000,
    refresh_absolute_lifetime   BIGINT NOT NULL DEFAULT 2592000,
    refresh_idle_lifetime       BIGINT NOT NULL DEFAULT 1296000,
    refresh_reuse_interval      BIGINT NOT NULL DEFAULT 10 CHECK (refresh_reuse_interval BETWEEN 0 AND 60),
    refresh_survives_logout     BIGINT NOT NULL DEFAULT 1,
    introspection_enabled       BIGINT NOT NULL DEFAULT 0,
    apple_team_id               TEXT,
    bundle_id                   TEXT,
    android_package             TEXT,
    android_sha256              TEXT,
    created_at                  BIGINT NOT NULL,
    updated_at                  BIGINT NOT NULL,
    signup_enabled              BIGINT NOT NULL DEFAULT 0,
    require_email_verification  BIGINT NOT NULL DEFAULT 0,
    updated_at_format           TEXT NOT NULL DEFAULT 'iso' CHECK (updated_at_format IN ('iso', 'number')),
    logo_url                    TEXT,
    accent_color                TEXT CHECK (accent_color IS NULL OR accent_color ~ '^#[0-9a-f]{6}$')
);

CREATE TABLE client_allowed_urls (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('callback', 'logout', 'web_origin')),
    position    BIGINT NOT NULL,
    url         TEXT NOT NULL,
    PRIMARY KEY (client_id, kind, position)
);

CREATE TABLE connections (
    name                    TEXT PRIMARY KEY,
    strategy                TEXT NOT NULL CHECK (strategy IN ('apple', 'google', 'oidc')),
    client_id               TEXT NOT NULL,
    sealed_client_secret    BYTEA,
    sealed_private_key      BYTEA,
    team_id                 TEXT,
    key_id                  TEXT,
    discovery_url           TEXT,
    authorize_url           TEXT,
    token_url               TEXT,
    jwks_url                TEXT,
    revoke_url              TEXT,
    issuer                  TEXT,
    hosted_domain           TEXT,
    scopes                  TEXT NOT NULL DEFAULT 'openid profile email',
    native_audiences        TEXT NOT NULL DEFAULT '',
    link_by_verified_email  BIGINT NOT NULL DEFAULT 0,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL
);

CREATE TABLE users (
    user_id         TEXT PRIMARY KEY,
    email           TEXT NOT NULL,
    email_key       TEXT NOT NULL UNIQUE,
    email_verified  BIGINT NOT NULL DEFAULT 0,
    password_hash   TEXT,
    name            TEXT,
    given_name      TEXT,
    family_name     TEXT,
    nickname        TEXT,
    picture         TEXT,
    blocked         BIGINT NOT NULL DEFAULT 0,
    logins_count    BIGINT NOT NULL DEFAULT 0,
    last_login_at   BIGINT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    user_metadata   TEXT NOT NULL DEFAULT '{}',
    connection      TEXT REFERENCES connections (name) ON DELETE RESTRICT,
    email_lookup    TEXT
);
CREATE INDEX users_by_email_lookup ON users (email_lookup);
CREATE INDEX users_by_creation ON users (created_at, user_id);

CREATE TABLE apis (
    api_id          TEXT PRIMARY KEY,
    identifier      TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    scopes          TEXT NOT NULL DEFAULT '',
    token_lifetime  BIGINT NOT NULL DEFAULT 86400,
    signing_alg     TEXT NOT NULL DEFAULT 'RS256' CHECK (signing_alg IN ('RS256', 'ES256')),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE TABLE client_grants (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    api_id      TEXT NOT NULL REFERENCES apis (api_id) ON DELETE CASCADE,
    scopes      TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (client_id, api_id)
);

CREATE TABLE sessions (
    session_id      TEXT PRIMARY KEY,
    cookie_hash     TEXT NOT NULL UNIQUE,
    user_id         TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    auth_time       BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    last_seen_at    BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    ended_at        BIGINT,
    device_name     TEXT,
    ip              TEXT
);
CREATE INDEX sessions_by_user ON sessions (user_id, ended_at);
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at) WHERE ended_at IS NULL;

CREATE TABLE grants (
    grant_id        TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    user_id         TEXT REFERENCES users (user_id) ON DELETE CASCADE,
    session_id      TEXT REFERENCES sessions (session_id) ON DELETE SET NULL,
    scope           TEXT NOT NULL,
    audience        TEXT,
    auth_time       BIGINT,
    created_at      BIGINT NOT NULL,
    revoked_at      BIGINT,
    revoke_reason   TEXT
);
CREATE INDEX grants_by_user ON grants (user_id, client_id);
CREATE INDEX grants_by_session ON grants (session_id);

CREATE TABLE authorization_codes (
    code_hash               TEXT PRIMARY KEY,
    client_id               TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    user_id                 TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    session_id              TEXT REFERENCES sessions (session_id) ON DELETE SET NULL,
    redirect_uri            TEXT NOT NULL,
    scope                   TEXT NOT NULL,
    audience                TEXT,
    nonce                   TEXT,
    code_challenge          TEXT,
    code_challenge_method   TEXT,
    auth_time               BIGINT NOT NULL,
    created_at              BIGINT NOT NULL,
    expires_at              BIGINT NOT NULL,
    used_at                 BIGINT,
    grant_id                TEXT
);
CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);
CREATE INDEX authorization_codes_by_session ON authorization_codes (session_id);
CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);

-- A family's tokens side by side (SQLite 0005's layout); the digest is unique across families.
CREATE TABLE refresh_tokens (
    grant_id        TEXT NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation      BIGINT NOT NULL,
    token_hash      TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    scope           TEXT NOT NULL,
    issued_at       BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    last_used_at    BIGINT NOT NULL,
    rotated_at      BIGINT,
    successor_hash  TEXT,
    revoked_at      BIGINT,
    PRIMARY KEY (grant_id, generation)
);
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash);

CREATE TABLE revoked_access_tokens (
    jti         TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);

CREATE TABLE signing_keys (
    kid                     TEXT PRIMARY KEY,
    alg                     TEXT NOT NULL CHECK (alg IN ('RS256', 'ES256')),
    status                  TEXT NOT NULL CHECK (status IN ('active', 'retired')),
    private_key_encrypted   BYTEA NOT NULL,
    public_jwk              TEXT NOT NULL,
    created_at              BIGINT NOT NULL,
    retired_at              BIGINT
);
CREATE INDEX signing_keys_by_status ON signing_keys (status, alg);

CREATE TABLE audit_events (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    time        BIGINT NOT NULL,
    event       TEXT NOT NULL,
    user_id     TEXT,
    client_id   TEXT,
    ip          TEXT,
    actor       TEXT,
    details     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_by_user ON audit_events (user_id, id);

CREATE TABLE login_transactions (
    id_hash     TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    parameters  TEXT NOT NULL,
    csrf_hash   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    session_id  TEXT
);
CREATE INDEX login_transactions_by_expiry ON login_transactions (expires_at);

CREATE TABLE login_throttle (
    key                 TEXT PRIMARY KEY,
    failures            BIGINT NOT NULL,
    window_started_at   BIGINT NOT NULL,
    last_failure_at     BIGINT NOT NULL,
    locked_until        BIGINT
);

-- Bumped on every change to an application, so each node's client cache notices another node's edits.
CREATE TABLE change_counters (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO change_counters (name, value) VALUES ('clients', 0);
CREATE FUNCTION gatehouse_bump_clients_counter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'clients';
    RETURN NULL;
END $$;
CREATE TRIGGER clients_changed AFTER INSERT OR UPDATE OR DELETE ON clients
    FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_bump_clients_counter();
CREATE TRIGGER client_urls_changed AFTER INSERT OR UPDATE OR DELETE ON client_allowed_urls
    FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_bump_clients_counter();

CREATE TABLE write_probe (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    probed_at   BIGINT NOT NULL
);

CREATE TABLE one_time_codes (
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password', 'passwordless')),
    email_key   TEXT NOT NULL,
    code_hash   TEXT NOT NULL,
    link_hash   TEXT UNIQUE,
    client_id   TEXT,
    attempts    BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    PRIMARY KEY (email_key, purpose)
);
CREATE INDEX one_time_codes_by_expiry ON one_time_codes (expires_at);

CREATE TABLE password_history (
    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    hash        TEXT NOT NULL,
    PRIMARY KEY (user_id, created_at, hash)
);

CREATE TABLE deleted_user_refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX deleted_user_refresh_tokens_by_expiry ON deleted_user_refresh_tokens (expires_at);

CREATE TABLE mail_outbox (
    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    recipient       TEXT NOT NULL,
    template        TEXT NOT NULL,
    locale          TEXT NOT NULL,
    sealed_values   BYTEA,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_attempt_at BIGINT,
    finished_at     BIGINT,
    last_error      TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status IN ('pending', 'sending');
CREATE INDEX mail_outbox_finished ON mail_outbox (finished_at) WHERE status IN ('sent', 'failed');

CREATE TABLE client_connections (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    connection  TEXT NOT NULL REFERENCES connections (name) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    PRIMARY KEY (client_id, connection)
);
CREATE INDEX client_connections_by_connection ON client_connections (connection);

CREATE TABLE identities (
    connection              TEXT NOT NULL REFERENCES connections (name) ON DELETE CASCADE,
    subject                 TEXT NOT NULL,
    user_id                 TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    profile                 TEXT NOT NULL DEFAULT '{}',
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL,
    sealed_refresh_token    BYTEA,
    refresh_token_client_id TEXT,
    email_forwarding        TEXT CHECK (email_forwarding IN ('enabled', 'disabled')),
    PRIMARY KEY (connection, subject)
);
CREATE INDEX identities_by_user ON identities (user_id);

CREATE TABLE upstream_revocations (
    id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    connection      TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    sealed_token    BYTEA,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'done', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_attempt_at BIGINT,
    finished_at     BIGINT,
    last_error      TEXT
);
CREATE INDEX upstream_revocations_due ON upstream_revocations (next_attempt_at) WHERE status IN ('pending', 'sending');
CREATE INDEX upstream_revocations_finished ON upstream_revocations (finished_at) WHERE status IN ('done', 'failed');
