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
