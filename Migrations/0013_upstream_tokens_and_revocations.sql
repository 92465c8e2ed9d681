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
