// GENERATED FILE: do not edit. Produced by scripts/embed-migrations from Migrations/**/*.sql;
// rerun the script after changing a migration (StorageTests fails while this file is stale).
import SQLite

/// The schema migrations compiled into the binary, in version order.
public enum EmbeddedMigrations {
    public static let all: [Migration] = [
        Migration(
            version: 1,
            name: "initial",
            sql: #"""
-- 0001_initial: the tables Gatehouse needs to sign users in and keep them signed in.
-- Applied once inside a transaction by the built-in migrator; never edit it after release:
-- add Migrations/NNNN_name.sql instead (and run scripts/embed-migrations).
-- Times are Unix seconds (INTEGER). Secrets (client secrets, codes, tokens, session
-- cookies) are stored only as SHA-256/HMAC digests, hex-encoded, never in plaintext.

-- Applications (Auth0 model).
CREATE TABLE clients (
    client_id                   TEXT PRIMARY KEY,
    name                        TEXT NOT NULL,
    app_type                    TEXT NOT NULL CHECK (app_type IN ('native', 'spa', 'regular', 'm2m')),
    secret_hash                 TEXT,             -- scrypt string; NULL for public clients
    auth_methods                TEXT NOT NULL,    -- space-separated: none | client_secret_post client_secret_basic
    grant_types                 TEXT NOT NULL,    -- space-separated Auth0 grant_types values
    id_token_alg                TEXT NOT NULL DEFAULT 'RS256' CHECK (id_token_alg IN ('RS256', 'ES256')),
    access_token_lifetime       INTEGER NOT NULL DEFAULT 86400,
    id_token_lifetime           INTEGER NOT NULL DEFAULT 36000,
    refresh_absolute_lifetime   INTEGER NOT NULL DEFAULT 2592000,
    refresh_idle_lifetime       INTEGER NOT NULL DEFAULT 1296000,
    refresh_reuse_interval      INTEGER NOT NULL DEFAULT 10 CHECK (refresh_reuse_interval BETWEEN 0 AND 60),
    refresh_survives_logout     INTEGER NOT NULL DEFAULT 1,
    introspection_enabled       INTEGER NOT NULL DEFAULT 0,
    apple_team_id               TEXT,
    bundle_id                   TEXT,
    android_package             TEXT,
    android_sha256              TEXT,             -- comma-separated certificate fingerprints
    created_at                  INTEGER NOT NULL,
    updated_at                  INTEGER NOT NULL
);

-- Allowed Callback URLs, Allowed Logout URLs and Allowed Web Origins, in the operator's order.
CREATE TABLE client_allowed_urls (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('callback', 'logout', 'web_origin')),
    position    INTEGER NOT NULL,
    url         TEXT NOT NULL,
    PRIMARY KEY (client_id, kind, position)
) WITHOUT ROWID;

CREATE TABLE users (
    user_id         TEXT PRIMARY KEY,             -- the `sub` claim
    email           TEXT NOT NULL,
    email_key       TEXT NOT NULL UNIQUE,         -- lower-cased email: uniqueness is case-insensitive
    email_verified  INTEGER NOT NULL DEFAULT 0,
    password_hash   TEXT,                         -- scrypt, or an imported bcrypt hash until the next login
    name            TEXT,
    given_name      TEXT,
    family_name     TEXT,
    nickname        TEXT,
    picture         TEXT,
    blocked         INTEGER NOT NULL DEFAULT 0,
    logins_count    INTEGER NOT NULL DEFAULT 0,
    last_login_at   INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- APIs (resource servers) and the scopes each application is granted on them.
CREATE TABLE apis (
    api_id          TEXT PRIMARY KEY,
    identifier      TEXT NOT NULL UNIQUE,         -- the audience, e.g. https://api.example.com
    name            TEXT NOT NULL,
    scopes          TEXT NOT NULL DEFAULT '',     -- space-separated
    token_lifetime  INTEGER NOT NULL DEFAULT 86400,
    signing_alg     TEXT NOT NULL DEFAULT 'RS256' CHECK (signing_alg IN ('RS256', 'ES256')),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE TABLE client_grants (
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    api_id      TEXT NOT NULL REFERENCES apis (api_id) ON DELETE CASCADE,
    scopes      TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (client_id, api_id)
) WITHOUT ROWID;

-- Browser sign-in sessions (SSO); one per device and login.
CREATE TABLE sessions (
    session_id      TEXT PRIMARY KEY,             -- public identifier (the `sid` claim)
    cookie_hash     TEXT NOT NULL UNIQUE,
    user_id         TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    auth_time       INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    last_seen_at    INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    ended_at        INTEGER,
    device_name     TEXT,                         -- user agent / Auth0-Client app name and version
    ip              TEXT
);
CREATE INDEX sessions_by_user ON sessions (user_id, ended_at);

-- A grant is one token family: everything issued from one authorization or login.
CREATE TABLE grants (
    grant_id        TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    user_id         TEXT REFERENCES users (user_id) ON DELETE CASCADE,   -- NULL for client_credentials
    session_id      TEXT REFERENCES sessions (session_id) ON DELETE SET NULL,
    scope           TEXT NOT NULL,
    audience        TEXT,
    auth_time       INTEGER,
    created_at      INTEGER NOT NULL,
    revoked_at      INTEGER,
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
    auth_time               INTEGER NOT NULL,
    created_at              INTEGER NOT NULL,
    expires_at              INTEGER NOT NULL,
    used_at                 INTEGER,              -- set once, atomically, on redemption
    grant_id                TEXT                  -- the family issued from it, revoked on replay
) WITHOUT ROWID;
CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);

CREATE TABLE refresh_tokens (
    token_hash      TEXT PRIMARY KEY,
    grant_id        TEXT NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
    client_id       TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    scope           TEXT NOT NULL,
    issued_at       INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,             -- absolute lifetime of the family
    last_used_at    INTEGER NOT NULL,             -- for the inactivity lifetime
    rotated_at      INTEGER,                      -- set when exchanged for its successor
    successor_hash  TEXT,
    revoked_at      INTEGER
) WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);

-- Access tokens are self-contained JWTs; only revoked ones are remembered, until they expire.
CREATE TABLE revoked_access_tokens (
    jti         TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- Signing keys; the private key is AES-256-GCM encrypted under the key-encryption key.
CREATE TABLE signing_keys (
    kid                     TEXT PRIMARY KEY,     -- RFC 7638 thumbprint
    alg                     TEXT NOT NULL CHECK (alg IN ('RS256', 'ES256')),
    status                  TEXT NOT NULL CHECK (status IN ('active', 'retired')),
    private_key_encrypted   BLOB NOT NULL,
    public_jwk              TEXT NOT NULL,
    created_at              INTEGER NOT NULL,
    retired_at              INTEGER
) WITHOUT ROWID;
CREATE INDEX signing_keys_by_status ON signing_keys (status, alg);

-- Who did what, for operators (`idp-admin audit tail`).
CREATE TABLE audit_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    time        INTEGER NOT NULL,
    event       TEXT NOT NULL,
    user_id     TEXT,
    client_id   TEXT,
    ip          TEXT,
    actor       TEXT,                             -- 'user', 'system' or the operator's OS user name
    details     TEXT NOT NULL DEFAULT '{}'        -- JSON object
);
CREATE INDEX audit_events_by_user ON audit_events (user_id, id);

"""#,
            checksum: "837e64f1a7ca32567f012afa5257bca30e8651d861370022ed575b1212d1576a"
        ),
        Migration(
            version: 2,
            name: "login_transactions",
            sql: #"""
-- 0002_login_transactions: pending authorizations between the login form and the code.
-- The browser holds only the transaction id in a cookie; only its digest is stored here.

CREATE TABLE login_transactions (
    id_hash     TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
    parameters  TEXT NOT NULL,                    -- JSON object of the validated /authorize parameters
    csrf_hash   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    session_id  TEXT                              -- set once the user authenticated
) WITHOUT ROWID;
CREATE INDEX login_transactions_by_expiry ON login_transactions (expires_at);

"""#,
            checksum: "62cd3875a2b67c08ade92b3628cd93932321d6c973a938666e48c02c6c093266"
        ),
        Migration(
            version: 3,
            name: "login_throttle",
            sql: #"""
-- Failed-login counters per email+IP pair and per IP, so brute-force locks survive restarts.
CREATE TABLE login_throttle (
    key                 TEXT PRIMARY KEY,     -- 'pair:<sha256(email)>|<ip>' or 'ip:<ip>'
    failures            INTEGER NOT NULL,
    window_started_at   INTEGER NOT NULL,
    last_failure_at     INTEGER NOT NULL,     -- milliseconds, to tell failures under a second apart
    locked_until        INTEGER               -- Unix seconds; NULL when not locked
) WITHOUT ROWID;

"""#,
            checksum: "eac4907b57cd7f28f83591db2c6e1c02d3479925f21be71bb579be4eb58b5972"
        ),
        Migration(
            version: 4,
            name: "change_counters",
            sql: #"""
-- Change counters for what the daemon caches in memory. Triggers bump a counter on every change
-- to its tables, whichever process makes it (idp or idp-admin), so a cached entry is used only
-- while the counter it was loaded under is unchanged: one tiny read instead of reloading the rows.

CREATE TABLE change_counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;

-- 'clients': applications and their allow-lists (SQLiteClientStore.find).
INSERT INTO change_counters (name, value) VALUES ('clients', 0);

CREATE TRIGGER clients_changed_on_insert AFTER INSERT ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER clients_changed_on_update AFTER UPDATE ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER clients_changed_on_delete AFTER DELETE ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_insert AFTER INSERT ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_update AFTER UPDATE ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_delete AFTER DELETE ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;

"""#,
            checksum: "1c1d889e61d91cdddafb147b295a9397e91376201df4e0d0133a7866e8dcb394"
        ),
        Migration(
            version: 5,
            name: "refresh_tokens_by_family",
            sql: #"""
-- Refresh tokens stored in family order. Keyed by their digest, a rotation changed three random
-- pages: the presented token's, its successor's and the family index's. Keyed by (family,
-- generation), the successor lands next to the token it replaces, so a rotation changes that
-- page and one page of the digest index. On the ES256 refresh benchmark: 20 instead of 24 KB
-- written to disk per refresh (WAL and checkpoint), p99 about 2 ms lower, same throughput.
CREATE TABLE refresh_tokens_by_family (
    grant_id        TEXT NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation      INTEGER NOT NULL,             -- 0 for the family's first token, then one more per rotation
    token_hash      TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    scope           TEXT NOT NULL,
    issued_at       INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,             -- absolute lifetime of the family
    last_used_at    INTEGER NOT NULL,             -- for the inactivity lifetime
    rotated_at      INTEGER,                      -- set when exchanged for its successor
    successor_hash  TEXT,
    revoked_at      INTEGER,
    PRIMARY KEY (grant_id, generation)
) WITHOUT ROWID;

INSERT INTO refresh_tokens_by_family (grant_id, generation, token_hash, client_id, user_id, scope, issued_at, expires_at,
                                      last_used_at, rotated_at, successor_hash, revoked_at)
SELECT grant_id, ROW_NUMBER() OVER (PARTITION BY grant_id ORDER BY issued_at, token_hash) - 1, token_hash, client_id,
       user_id, scope, issued_at, expires_at, last_used_at, rotated_at, successor_hash, revoked_at
FROM refresh_tokens;

DROP TABLE refresh_tokens;
ALTER TABLE refresh_tokens_by_family RENAME TO refresh_tokens;
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash);

"""#,
            checksum: "ca925c66ac6749481c25183eb7ba5c86b6e9419da48397d095f30c28d71e250e"
        ),
        Migration(
            version: 6,
            name: "maintenance",
            sql: #"""
-- 0006_maintenance: what the background purge (Storage/Purger.swift) and readiness need.

-- Deleting a session sets authorization_codes.session_id to NULL (ON DELETE SET NULL), which
-- without an index scans every code once per deleted session, under the write lock.
CREATE INDEX authorization_codes_by_session ON authorization_codes (session_id);

-- One row that /readyz rewrites when it must find out whether writes work again (a full disk
-- still answers reads). Nothing else reads it.
CREATE TABLE write_probe (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    probed_at   INTEGER NOT NULL
);

"""#,
            checksum: "af31284654b3351dc5c420cf534f31ff7b3f39e0cac201979b45d3758c1a6991"
        ),
        Migration(
            version: 7,
            name: "accounts",
            sql: #"""
-- 0007_accounts: what people need to create and recover their own accounts (README "Accounts").

-- Per application: whether people may sign themselves up, and whether a new address must be
-- confirmed before the first sign-in (Auth0's connection settings, kept per application here).
ALTER TABLE clients ADD COLUMN signup_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN require_email_verification INTEGER NOT NULL DEFAULT 0;

-- Auth0's user_metadata: a flat JSON object of strings the user may edit.
ALTER TABLE users ADD COLUMN user_metadata TEXT NOT NULL DEFAULT '{}';

-- One live code per purpose and address: email verification, password reset, passwordless sign-in.
-- Codes are six digits, so they are stored as HMAC-SHA256 under a server key (a bare SHA-256 of a
-- six-digit value is reversed by trying all of them); a reset link's token is a 256-bit secret
-- stored as SHA-256. A code dies after max attempts, after use, and at expires_at.
CREATE TABLE one_time_codes (
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password', 'passwordless')),
    email_key   TEXT NOT NULL,
    code_hash   TEXT NOT NULL,
    link_hash   TEXT UNIQUE,
    client_id   TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (email_key, purpose)
) WITHOUT ROWID;
CREATE INDEX one_time_codes_by_expiry ON one_time_codes (expires_at);

-- Earlier password hashes, newest first, for the optional history rule (PasswordHistoryError).
CREATE TABLE password_history (
    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    PRIMARY KEY (user_id, created_at, hash)
) WITHOUT ROWID;

"""#,
            checksum: "8cd4482c4a64b2bf8f24f9ffefd7a03cb4b6ef1b41b38e02de321fd478150842"
        ),
        Migration(
            version: 8,
            name: "updated_at_format_and_deleted_users",
            sql: #"""
-- 0008_updated_at_format_and_deleted_users: how an application's ID tokens and /userinfo write `updated_at`.
-- 'iso' (Auth0's ISO 8601 string, the default) or 'number' (OpenID Connect Core §5.1 seconds).
ALTER TABLE clients ADD COLUMN updated_at_format TEXT NOT NULL DEFAULT 'iso'
    CHECK (updated_at_format IN ('iso', 'number'));

-- The digests of the refresh tokens a deleted user held, until they would have expired, so a
-- refresh with one gets Auth0's "The refresh_token was generated for a user who doesn't exist
-- anymore." (docs/auth0-compat.md) rather than the answer for an unknown token. Filled and
-- pruned by SQLiteUserStore.delete.
CREATE TABLE deleted_user_refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

"""#,
            checksum: "50545dbcc1dd44a05864ed12caff1b504cbdacb4c5298e6fafa6735a3a17e80e"
        ),
        Migration(
            version: 9,
            name: "mail_outbox",
            sql: #"""
-- 0009_mail_outbox: the durable mail queue (README "Email"; Storage/SQLiteMailOutbox.swift).
-- Requests insert a row and return; the daemon's background sender claims due rows, delivers
-- them and records the outcome, so a mail-server outage or a restart loses nothing.
CREATE TABLE mail_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient       TEXT NOT NULL,
    template        TEXT NOT NULL,
    locale          TEXT NOT NULL,
    -- The placeholder values (codes, links) as JSON, sealed with AES-256-GCM under a key derived
    -- from the key-encryption key; set to NULL once the message is sent or has finally failed.
    sealed_values   BLOB,
    -- pending: waiting for next_attempt_at; sending: claimed by a sender until next_attempt_at
    -- (a crashed sender's claim simply expires); sent; failed (given up, see last_error).
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    last_attempt_at INTEGER,
    finished_at     INTEGER,
    last_error      TEXT
);

-- The sender's question: what is due now (pending or an expired claim), oldest first.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status IN ('pending', 'sending');
-- The purge's question: sent or failed rows past their retention.
CREATE INDEX mail_outbox_finished ON mail_outbox (finished_at) WHERE status IN ('sent', 'failed');

"""#,
            checksum: "1dfe5309130e1352ad70d88c03dbb5e685c23ff861aaea4f24209a02db4ff09f"
        ),
        Migration(
            version: 10,
            name: "application_branding",
            sql: ##"""
-- 0010_application_branding: an application's login-page logo (an https URL) and accent colour
-- (lower-case #rrggbb; the page picks white or black text for WCAG AA contrast, Model/BrandColor).
ALTER TABLE clients ADD COLUMN logo_url TEXT;
ALTER TABLE clients ADD COLUMN accent_color TEXT
    CHECK (accent_color IS NULL OR (length(accent_color) = 7 AND accent_color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'));

"""##,
            checksum: "6e6ca1e85d56ccaddff861927b334ee72905648ea7bcfc1583941e30c01b1259"
        ),
        Migration(
            version: 11,
            name: "connections",
            sql: #"""
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

"""#,
            checksum: "d9814a74fb8728fcfb6d2699eeca72309e243ef88d7c1764c9e2bb4f35394db5"
        ),
        Migration(
            version: 12,
            name: "hot_path_indexes",
            sql: #"""
-- 0012_hot_path_indexes: operations that read every row at a million users (README "Tests and
-- benchmarks", the plan check in StorageTests/QueryPlanTests).

-- `idp-admin users list` pages in creation order: an index walk, not a sort of every user.
CREATE INDEX users_by_creation ON users (created_at, user_id);

-- The live-sessions gauge counts the live sessions only, from a small covering index.
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at) WHERE ended_at IS NULL;

-- Deleting or revoking a user finds their pending codes by user, not by reading every code (the
-- foreign key's cascade included).
CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);

-- Deleting a user forgets the deleted users' tokens that expired by a range of this index.
CREATE INDEX deleted_user_refresh_tokens_by_expiry ON deleted_user_refresh_tokens (expires_at);

"""#,
            checksum: "8e8029c6682e646193d8cf3a78d7bfba3a078a45e9fb076bd6cca1fc3ad82f19"
        ),
        Migration(
            version: 13,
            name: "upstream_tokens_and_revocations",
            sql: #"""
-- 0013_upstream_tokens_and_revocations: Apple's refresh tokens and the queue that revokes them when an
-- account is deleted (README "Account deletion"; Storage/SQLiteUpstreamTokenStore.swift,
-- Storage/SQLiteUpstreamRevocationQueue.swift, Storage/SQLiteAccountDeletion.swift).

-- The identity's newest upstream refresh token, sealed with AES-256-GCM under a key derived from the
-- key-encryption key and bound to the connection and subject (as the mail outbox seals its values),
-- and the client id it was issued to (the Services ID on the web, a bundle id natively): Apple's
-- revoke endpoint needs both. `email_forwarding` is what Apple last said of the private-relay
-- address (server-to-server notifications): 'enabled', 'disabled', or NULL when it never said.
ALTER TABLE identities ADD COLUMN sealed_refresh_token BLOB;
ALTER TABLE identities ADD COLUMN refresh_token_client_id TEXT;
ALTER TABLE identities ADD COLUMN email_forwarding TEXT CHECK (email_forwarding IN ('enabled', 'disabled'));

-- Upstream tokens to revoke, queued in the same transaction that deletes the account, so the user is
-- gone at once even while Apple cannot be reached; the daemon's background sender retries with
-- backoff until Apple answers 200, then drops the token (sealed_token NULL, status 'done').
-- No foreign key: the row outlives the user and the identity it came from.
CREATE TABLE upstream_revocations (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    connection      TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    -- Sealed like identities.sealed_refresh_token, bound to connection, client_id and created_at.
    sealed_token    BLOB,
    -- pending: waiting for next_attempt_at; sending: claimed until next_attempt_at (a crashed
    -- sender's claim expires); done: Apple answered 200; failed: cannot ever be sent (the
    -- connection is gone, or the token cannot be opened).
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'done', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    last_attempt_at INTEGER,
    finished_at     INTEGER,
    last_error      TEXT
);
CREATE INDEX upstream_revocations_due ON upstream_revocations (next_attempt_at) WHERE status IN ('pending', 'sending');
CREATE INDEX upstream_revocations_finished ON upstream_revocations (finished_at) WHERE status IN ('done', 'failed');

"""#,
            checksum: "c51009709e103e84d6b4661f8db76fccd39c2acef10ccb6e8cc7145072c05d61"
        ),
        Migration(
            version: 14,
            name: "session_transfer",
            sql: #"""
-- 0014_session_transfer: native-to-web session transfer (README "Native to web"; Storage/SQLiteSessionTransferStore.swift).

-- Per application: may it ask for a session transfer token (issuing side), which channels its
-- /authorize honours one from (receiving side: '' = off, 'cookie', 'query', 'cookie query'), and
-- whether a token is bound to the address that asked for it.
ALTER TABLE clients ADD COLUMN session_transfer_allow INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN session_transfer_accept TEXT NOT NULL DEFAULT ''
    CHECK (session_transfer_accept IN ('', 'cookie', 'query', 'cookie query'));
ALTER TABLE clients ADD COLUMN session_transfer_binding TEXT NOT NULL DEFAULT 'ip'
    CHECK (session_transfer_binding IN ('ip', 'none'));

-- A session a transfer created remembers the refresh-token family it came from. When that family
-- is purged (long dead) the session simply forgets it.
ALTER TABLE sessions ADD COLUMN parent_grant_id TEXT REFERENCES grants (grant_id) ON DELETE SET NULL;
CREATE INDEX sessions_by_parent_grant ON sessions (parent_grant_id) WHERE parent_grant_id IS NOT NULL;

-- One-time tokens, by the SHA-256 of their value; a consumed one stays until it expires, so a second
-- presentation is told apart from an unknown token (audit), then the maintenance purge drops it.
CREATE TABLE session_transfer_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    client_id   TEXT NOT NULL,
    grant_id    TEXT NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
    ip          TEXT,                          -- NULL: not bound to an address
    issued_at   INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    consumed_at INTEGER
) WITHOUT ROWID;
CREATE INDEX session_transfer_tokens_by_expiry ON session_transfer_tokens (expires_at);
CREATE INDEX session_transfer_tokens_by_grant ON session_transfer_tokens (grant_id);
CREATE INDEX session_transfer_tokens_by_user ON session_transfer_tokens (user_id);

-- Revoking a grant, by any path (/oauth/revoke, refresh-token reuse, logout, idp-admin, a password
-- reset), ends the sessions transferred from it and revokes what was issued under them, in the
-- same transaction. One level is enough: a transferred session cannot hand itself over again
-- (OIDC/Token/SessionTransferGrant.swift).
CREATE TRIGGER grants_revoked_end_transferred_sessions AFTER UPDATE OF revoked_at ON grants
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
BEGIN
    UPDATE refresh_tokens SET revoked_at = NEW.revoked_at
        WHERE revoked_at IS NULL AND grant_id IN (SELECT grant_id FROM grants WHERE session_id IN
            (SELECT session_id FROM sessions WHERE parent_grant_id = NEW.grant_id));
    UPDATE grants SET revoked_at = NEW.revoked_at, revoke_reason = 'parent grant of a session transfer revoked'
        WHERE revoked_at IS NULL AND session_id IN (SELECT session_id FROM sessions WHERE parent_grant_id = NEW.grant_id);
    UPDATE sessions SET ended_at = NEW.revoked_at WHERE parent_grant_id = NEW.grant_id AND ended_at IS NULL;
END;

"""#,
            checksum: "efa9890ff7a818c9b0d714b839842716e84ca6743b38885b74dc8eeb88db2567"
        ),
        Migration(
            version: 15,
            name: "refresh_tokens_by_position",
            sql: ##"""
-- 0015_refresh_tokens_by_position: refresh tokens that name their place in their family.
--
-- A token issued from now on carries its family (grant_id) and generation (OIDC
-- RefreshTokenValue), so it is found by the primary key and its digest checked there; a
-- rotation then writes the family's page and no index keyed by a random digest (issue #18:
-- that index grew to a gigabyte at ten million tokens and every rotation dirtied a random page
-- of it). Tokens issued before keep working by their digest: the index now covers them alone.
ALTER TABLE refresh_tokens ADD COLUMN found_by_hash INTEGER NOT NULL DEFAULT 1;  -- 0: found by (grant_id, generation)
DROP INDEX refresh_tokens_by_hash;
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash) WHERE found_by_hash = 1;

"""##,
            checksum: "c6c15ebe5de8ee87d3320e0aab10c953a4af10d5eadc8ea58d0f9b40863edb81"
        ),
        Migration(
            version: 16,
            name: "live_sessions_covering",
            sql: ##"""
-- 0016_live_sessions_covering: the live-sessions gauge (`/metrics` gatehouse_active_sessions)
-- counts from the index alone. The partial index of 0012 lacked `ended_at`, which the count names,
-- so every entry also read its table row (0.35 s at 700,000 live sessions; issue #18).
DROP INDEX sessions_live_by_expiry;
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at, ended_at) WHERE ended_at IS NULL;

"""##,
            checksum: "58e80aa201a6e7784744683e41b7daf7ef859e3244d084996e4361b7c088c2b1"
        ),
        Migration(
            version: 17,
            name: "refresh_families",
            sql: ##"""
-- 0017_refresh_families: one row per refresh-token family, whatever its generation (issue #18).
--
-- A token issued from now on is `rt2.<grant_id>.<generation>.<mac>` (OIDC RefreshTokenValue): the
-- MAC, under a key derived from the key-encryption key, covers the grant, the generation and this
-- family's salt, so nothing secret is stored and a rotation is one conditional UPDATE of this row
-- (generation + 1 WHERE generation is the presented one): no INSERT, no index entry, and no row
-- kept per rotated token, since a valid MAC at an older generation is itself the proof of reuse.
-- The family is revoked with its grant (grants.revoked_at), so every revocation path already
-- covers it. No secondary index: every column that changes on rotation stays out of indexes.
-- Tokens issued before (refresh_tokens, rt1 and digest-only) keep working and rotate into a row here.
CREATE TABLE refresh_families (
    grant_id    TEXT PRIMARY KEY REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation  INTEGER NOT NULL,   -- the one live token's; every lower one was rotated
    salt        BLOB NOT NULL,      -- random per family, mixed into every MAC of it
    issued_at   INTEGER NOT NULL,   -- the family's first token
    expires_at  INTEGER NOT NULL,   -- absolute lifetime of the family
    rotated_at  INTEGER             -- last rotation (the live token's issue; the idle window counts from it)
) WITHOUT ROWID;

"""##,
            checksum: "45895b06c37ed2a4b5310eaa15c6d458317d539ad358d627179c40134a83a9cd"
        ),
        Migration(
            version: 18,
            name: "mail_outbox_by_recipient",
            sql: ##"""
-- 0018_mail_outbox_by_recipient: deleting an account removes the mail still queued to its address
-- (SQLiteAccountDeletion) by lower(recipient), inside the write transaction that deletes the
-- user. Without this index that statement read the whole outbox (a week of sent mail) while every
-- other writer waited (issue #18: no operation holds the write lock for more than a few ms).
CREATE INDEX mail_outbox_by_recipient ON mail_outbox (lower(recipient));

"""##,
            checksum: "750c31f429ed97230f9b67b0fa28f64da106e0f795a9eb0e10022bc8523a8a22"
        ),
        Migration(
            version: 19,
            name: "refresh_families_in_grants",
            sql: ##"""
-- 0019_refresh_families_in_grants: a one-row refresh-token family lives in its grant's row (issue #18).
--
-- A family (migration 0017) and its grant are one to one, and every refresh read both: three
-- B-trees (the family table, the grants' key index and the grants' table), each descended from its
-- root again after any other connection's commit, since SQLite then drops a reader's page cache.
-- At a million users and ten million families that was 12 page reads of a refresh's 19; in the
-- grant's row it is 8, and a rotation's conditional UPDATE reads and writes the grant's row alone
-- (its columns are in no index, so only the table's leaf page changes).
--
-- A grant whose refresh_salt is NULL has no one-row family: a machine grant, or a family stored
-- before migration 0017, whose tokens stay in refresh_tokens until one rotates into a family here.
-- The family is revoked and deleted with its grant, as before.
ALTER TABLE grants ADD COLUMN refresh_generation INTEGER;  -- the live token's; every lower one was rotated
ALTER TABLE grants ADD COLUMN refresh_salt BLOB;           -- random per family, mixed into every MAC of it
ALTER TABLE grants ADD COLUMN refresh_issued_at INTEGER;   -- the family's first token
ALTER TABLE grants ADD COLUMN refresh_expires_at INTEGER;  -- absolute lifetime of the family
ALTER TABLE grants ADD COLUMN refresh_rotated_at INTEGER;  -- last rotation (the live token's issue; the idle window counts from it)

UPDATE grants SET refresh_generation = f.generation, refresh_salt = f.salt, refresh_issued_at = f.issued_at,
    refresh_expires_at = f.expires_at, refresh_rotated_at = f.rotated_at
FROM refresh_families f WHERE f.grant_id = grants.grant_id;

DROP TABLE refresh_families;

"""##,
            checksum: "d31ad921efab1b3f71d8947b23696fd65b93a1ec0b417259cadc9a51794d91bd"
        ),
        Migration(
            version: 20,
            name: "revoked_grants",
            sql: ##"""
-- 0020_revoked_grants: an opaque access token is checked against the grants revoked lately, not
-- against its grant's row (issue #18).
--
-- An opaque access token (README "Opaque access tokens") is sealed by us and names its user, its
-- application and its grant. /userinfo read the grant's row only to learn whether the grant was
-- revoked: two B-trees (the grants' key index and table) that at a million grants no longer fit a
-- connection's page cache. This table holds just the users' grants revoked while access tokens
-- minted under them may still be unexpired, so it stays as small as the revocations of one
-- access-token lifetime, and the check reads it, the application's row and the user's.
--
-- A grant leaves `grants` without a revocation only
--   * through the purge, once every access token minted under it has expired, by the longest
--     lifetime the application has had (PurgeRules' FamilyRule);
--   * with its user (the check then finds no user) or its application (no application).
-- So a grant missing from `grants` but not revoked leaves nothing to remember here.
--
-- A row lives until the last access token minted before the revocation has expired: the
-- revocation plus the longest access-token lifetime the application has ever had. An application
-- whose lifetime was lowered may still have tokens out with the longer one, hence the high-water
-- mark below rather than the current lifetime.
ALTER TABLE clients ADD COLUMN longest_access_token_lifetime INTEGER NOT NULL DEFAULT 0;
UPDATE clients SET longest_access_token_lifetime = access_token_lifetime;

CREATE TRIGGER clients_longest_access_token_lifetime_on_insert AFTER INSERT ON clients
WHEN NEW.access_token_lifetime > NEW.longest_access_token_lifetime
BEGIN
    UPDATE clients SET longest_access_token_lifetime = NEW.access_token_lifetime WHERE client_id = NEW.client_id;
END;
CREATE TRIGGER clients_longest_access_token_lifetime_on_update AFTER UPDATE OF access_token_lifetime ON clients
WHEN NEW.access_token_lifetime > NEW.longest_access_token_lifetime
BEGIN
    UPDATE clients SET longest_access_token_lifetime = NEW.access_token_lifetime WHERE client_id = NEW.client_id;
END;

CREATE TABLE revoked_grants (
    grant_id    TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL   -- every access token minted under the grant has expired by then
) WITHOUT ROWID;
CREATE INDEX revoked_grants_by_expiry ON revoked_grants (expires_at);

-- Machine grants are left out: their tokens are JWTs, checked against the grant's row.
-- 2592000 s (30 days, the longest lifetime `idp-admin` accepts) stands in for an application that is gone.
CREATE TRIGGER grants_revoked_remembered AFTER UPDATE OF revoked_at ON grants
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.user_id IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO revoked_grants (grant_id, expires_at)
    VALUES (NEW.grant_id, NEW.revoked_at
        + COALESCE((SELECT longest_access_token_lifetime FROM clients WHERE client_id = NEW.client_id), 2592000));
END;

-- Grants revoked before this migration; the purge drops the rows already past their expiry.
INSERT OR IGNORE INTO revoked_grants (grant_id, expires_at)
SELECT g.grant_id, g.revoked_at + COALESCE(c.longest_access_token_lifetime, 2592000)
FROM grants g LEFT JOIN clients c ON c.client_id = g.client_id
WHERE g.revoked_at IS NOT NULL AND g.user_id IS NOT NULL;

"""##,
            checksum: "de2cfdb88f1f7b1bce2aaf652f1bf956b06cee3a5dead2939a284955ccfb2833"
        ),
    ]

    /// The PostgreSQL schema, numbered in step with `all` (Migrations/postgresql).
    public static let postgresql: [Migration] = [
        Migration(
            version: 1,
            name: "initial",
            sql: ##"""
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

"""##,
            checksum: "575a05e8f2f00e2d0d50bd4e3e5e4ef4bbf0403ee281a38802b5ebf786c3c01e"
        ),
        Migration(
            version: 2,
            name: "login_transactions",
            sql: #"""
-- 0002_login_transactions (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0002_login_transactions.sql.

"""#,
            checksum: "0476c35c9bf10f4a626995ebaac05db28f06c3ced7fb1220e2ee6143b37ce45a"
        ),
        Migration(
            version: 3,
            name: "login_throttle",
            sql: #"""
-- 0003_login_throttle (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0003_login_throttle.sql.

"""#,
            checksum: "cb932e47e7c3b2a4990b20808b6eb7c4d44155021aaf0adff374359098f9b3de"
        ),
        Migration(
            version: 4,
            name: "change_counters",
            sql: #"""
-- 0004_change_counters (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0004_change_counters.sql.

"""#,
            checksum: "e4223c8f0703ed8b3a5930d665dc2847471a0ef74101e166f90bd19ec3cbaffa"
        ),
        Migration(
            version: 5,
            name: "refresh_tokens_by_family",
            sql: #"""
-- 0005_refresh_tokens_by_family (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0005_refresh_tokens_by_family.sql.

"""#,
            checksum: "ea80802ad7d677eb9418927768f049344d2407cd4eb63209f19c2bdbc4bea416"
        ),
        Migration(
            version: 6,
            name: "maintenance",
            sql: #"""
-- 0006_maintenance (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0006_maintenance.sql.

"""#,
            checksum: "3476b39deb0db13bdfd8810dc104563e86b6c80d90a39243cf81667913bb6618"
        ),
        Migration(
            version: 7,
            name: "accounts",
            sql: #"""
-- 0007_accounts (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0007_accounts.sql.

"""#,
            checksum: "14eba62f6a9a353fd3e4032ca46463f3e9edca4985eb216a60ed0d3af7ca141e"
        ),
        Migration(
            version: 8,
            name: "updated_at_format_and_deleted_users",
            sql: #"""
-- 0008_updated_at_format_and_deleted_users (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0008_updated_at_format_and_deleted_users.sql.

"""#,
            checksum: "b221038d1ab6384d7c87a46ecf7643ae6a1281a311e9660e5ed176478618c784"
        ),
        Migration(
            version: 9,
            name: "mail_outbox",
            sql: #"""
-- 0009_mail_outbox (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0009_mail_outbox.sql.

"""#,
            checksum: "2d368de7cfee31a9c82b5e859d406a8c46c648cfe8b6e028f302aac78f46b86e"
        ),
        Migration(
            version: 10,
            name: "application_branding",
            sql: #"""
-- 0010_application_branding (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0010_application_branding.sql.

"""#,
            checksum: "27ea8c6292d702a1935e7f14654fadcaa26a2e344e64b68143c6174677703f41"
        ),
        Migration(
            version: 11,
            name: "connections",
            sql: #"""
-- 0011_connections (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0011_connections.sql.

"""#,
            checksum: "27c929d5021aec96f4ad434d4e8782bd1b59e2cd12fef2ee5dc9dc9163ed93ab"
        ),
        Migration(
            version: 12,
            name: "hot_path_indexes",
            sql: #"""
-- 0012_hot_path_indexes (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0012_hot_path_indexes.sql.

"""#,
            checksum: "a70c39875c50a33c746338b41b2d68295a4c5b51f57a1acb576618a00a466caa"
        ),
        Migration(
            version: 13,
            name: "upstream_tokens_and_revocations",
            sql: #"""
-- 0013_upstream_tokens_and_revocations (PostgreSQL): nothing to do; this change is part of postgresql/0001_initial.
-- Kept so the numbers stay in step with Migrations/0013_upstream_tokens_and_revocations.sql.

"""#,
            checksum: "71f3301726a1e509608c274c43975b00bfad879cf9ae0293a5e8d762e22eff28"
        ),
        Migration(
            version: 14,
            name: "session_transfer",
            sql: #"""
-- 0014_session_transfer (PostgreSQL): native-to-web session transfer, as Migrations/0014_session_transfer.sql.

ALTER TABLE clients ADD COLUMN session_transfer_allow BIGINT NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN session_transfer_accept TEXT NOT NULL DEFAULT ''
    CHECK (session_transfer_accept IN ('', 'cookie', 'query', 'cookie query'));
ALTER TABLE clients ADD COLUMN session_transfer_binding TEXT NOT NULL DEFAULT 'ip'
    CHECK (session_transfer_binding IN ('ip', 'none'));

ALTER TABLE sessions ADD COLUMN parent_grant_id TEXT REFERENCES grants (grant_id) ON DELETE SET NULL;
CREATE INDEX sessions_by_parent_grant ON sessions (parent_grant_id) WHERE parent_grant_id IS NOT NULL;

CREATE TABLE session_transfer_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    client_id   TEXT NOT NULL,
    grant_id    TEXT NOT NULL REFERENCES grants (grant_id) ON DELETE CASCADE,
    ip          TEXT,
    issued_at   BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    consumed_at BIGINT
);
CREATE INDEX session_transfer_tokens_by_expiry ON session_transfer_tokens (expires_at);
CREATE INDEX session_transfer_tokens_by_grant ON session_transfer_tokens (grant_id);
CREATE INDEX session_transfer_tokens_by_user ON session_transfer_tokens (user_id);

-- The SQLite trigger's body, as a row trigger function: revoking a grant ends the sessions
-- transferred from it and revokes what was issued under them, in the same transaction.
CREATE FUNCTION gatehouse_end_transferred_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE refresh_tokens SET revoked_at = NEW.revoked_at
        WHERE revoked_at IS NULL AND grant_id IN (SELECT grant_id FROM grants WHERE session_id IN
            (SELECT session_id FROM sessions WHERE parent_grant_id = NEW.grant_id));
    UPDATE grants SET revoked_at = NEW.revoked_at, revoke_reason = 'parent grant of a session transfer revoked'
        WHERE revoked_at IS NULL AND session_id IN (SELECT session_id FROM sessions WHERE parent_grant_id = NEW.grant_id);
    UPDATE sessions SET ended_at = NEW.revoked_at WHERE parent_grant_id = NEW.grant_id AND ended_at IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_revoked_end_transferred_sessions AFTER UPDATE OF revoked_at ON grants
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION gatehouse_end_transferred_sessions();

"""#,
            checksum: "d0d82f053fa7cc7aa7696c70a50fc70607036be2dfc25086fc13a4b22dffc759"
        ),
        Migration(
            version: 15,
            name: "refresh_tokens_by_position",
            sql: #"""
-- 0015_refresh_tokens_by_position (PostgreSQL): refresh tokens that name their place, as
-- Migrations/0015_refresh_tokens_by_position.sql: the digest index keeps only the tokens found by it.
ALTER TABLE refresh_tokens ADD COLUMN found_by_hash BIGINT NOT NULL DEFAULT 1;
DROP INDEX refresh_tokens_by_hash;
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash) WHERE found_by_hash = 1;

"""#,
            checksum: "91ec20ca96e00e422d0ba002fb8db235cc68d858275de6401585388afdf2e65a"
        ),
        Migration(
            version: 16,
            name: "live_sessions_covering",
            sql: #"""
-- 0016_live_sessions_covering (PostgreSQL): the live-sessions count from the index alone, as
-- Migrations/0016_live_sessions_covering.sql.
DROP INDEX sessions_live_by_expiry;
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at, ended_at) WHERE ended_at IS NULL;

"""#,
            checksum: "18f4ca68543f6eb35286d9e7d2d649b64ff1862f520b5a639f8c2b2f0b3fc4ab"
        ),
        Migration(
            version: 17,
            name: "refresh_families",
            sql: #"""
-- 0017_refresh_families (PostgreSQL): one row per refresh-token family, as
-- Migrations/0017_refresh_families.sql. No column of it is indexed but the key and there is room
-- left on each page, so a rotation's UPDATE is a heap-only tuple update.
CREATE TABLE refresh_families (
    grant_id    TEXT PRIMARY KEY REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation  BIGINT NOT NULL,
    salt        BYTEA NOT NULL,
    issued_at   BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    rotated_at  BIGINT
) WITH (fillfactor = 80);

"""#,
            checksum: "40cbea3604a09b933a08f1e8c704dd82fcdbb22aea66836884dff31d61ad3739"
        ),
        Migration(
            version: 18,
            name: "mail_outbox_by_recipient",
            sql: #"""
-- 0018_mail_outbox_by_recipient (PostgreSQL), as Migrations/0018_mail_outbox_by_recipient.sql:
-- an account's queued mail is found by lower(recipient) without reading the whole outbox.
CREATE INDEX mail_outbox_by_recipient ON mail_outbox ((lower(recipient)));

"""#,
            checksum: "f0de023db6adac84d5500d9e93b152f6eab5eba256d876801611cb91b928870a"
        ),
        Migration(
            version: 19,
            name: "refresh_families_in_grants",
            sql: #"""
-- 0019_refresh_families_in_grants (PostgreSQL), as Migrations/0019_refresh_families_in_grants.sql:
-- a one-row refresh-token family's columns move into its grant's row, so a refresh reads one row
-- and a rotation updates one. None of them is indexed, and the grants' pages written from now on
-- keep a fifth free, so a rotation's UPDATE can stay a heap-only tuple update (no index entry written).
ALTER TABLE grants
    ADD COLUMN refresh_generation BIGINT,
    ADD COLUMN refresh_salt BYTEA,
    ADD COLUMN refresh_issued_at BIGINT,
    ADD COLUMN refresh_expires_at BIGINT,
    ADD COLUMN refresh_rotated_at BIGINT;

UPDATE grants g SET refresh_generation = f.generation, refresh_salt = f.salt, refresh_issued_at = f.issued_at,
    refresh_expires_at = f.expires_at, refresh_rotated_at = f.rotated_at
FROM refresh_families f WHERE f.grant_id = g.grant_id;

DROP TABLE refresh_families;

ALTER TABLE grants SET (fillfactor = 80);

"""#,
            checksum: "51e136e66bd0e1d79d0bef148dd1ce7a11ae3fe9a2fe168f25506ef6d33280b4"
        ),
        Migration(
            version: 20,
            name: "revoked_grants",
            sql: #"""
-- 0020_revoked_grants (PostgreSQL), as Migrations/0020_revoked_grants.sql: an opaque access token
-- is checked against the users' grants revoked while its kind of token may still be unexpired,
-- not against its grant's row. Each application keeps the longest access-token lifetime it has
-- ever had, which bounds how long such a row must live.
ALTER TABLE clients ADD COLUMN longest_access_token_lifetime BIGINT NOT NULL DEFAULT 0;
UPDATE clients SET longest_access_token_lifetime = access_token_lifetime;

CREATE FUNCTION gatehouse_longest_access_token_lifetime() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        NEW.longest_access_token_lifetime := GREATEST(NEW.longest_access_token_lifetime, OLD.longest_access_token_lifetime);
    END IF;
    NEW.longest_access_token_lifetime := GREATEST(NEW.longest_access_token_lifetime, NEW.access_token_lifetime);
    RETURN NEW;
END $$;
CREATE TRIGGER clients_longest_access_token_lifetime BEFORE INSERT OR UPDATE ON clients
    FOR EACH ROW EXECUTE FUNCTION gatehouse_longest_access_token_lifetime();

CREATE TABLE revoked_grants (
    grant_id    TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX revoked_grants_by_expiry ON revoked_grants (expires_at);

-- Machine grants are left out (their JWTs are checked against the grant's row); 2592000 s stands
-- in for an application that is gone.
CREATE FUNCTION gatehouse_remember_revoked_grant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO revoked_grants (grant_id, expires_at)
    VALUES (NEW.grant_id, NEW.revoked_at
        + COALESCE((SELECT longest_access_token_lifetime FROM clients WHERE client_id = NEW.client_id), 2592000))
    ON CONFLICT (grant_id) DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_revoked_remembered AFTER UPDATE OF revoked_at ON grants
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.user_id IS NOT NULL)
    EXECUTE FUNCTION gatehouse_remember_revoked_grant();

INSERT INTO revoked_grants (grant_id, expires_at)
SELECT g.grant_id, g.revoked_at + COALESCE(c.longest_access_token_lifetime, 2592000)
FROM grants g LEFT JOIN clients c ON c.client_id = g.client_id
WHERE g.revoked_at IS NOT NULL AND g.user_id IS NOT NULL
ON CONFLICT (grant_id) DO NOTHING;

"""#,
            checksum: "d6ed2fff20215ab57801b187459973fcec8dff91b5d6c8294236028096a0cd41"
        ),
    ]
}
