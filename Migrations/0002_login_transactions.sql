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
