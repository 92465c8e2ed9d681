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
