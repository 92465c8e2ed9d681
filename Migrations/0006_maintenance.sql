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
