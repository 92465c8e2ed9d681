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
