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
