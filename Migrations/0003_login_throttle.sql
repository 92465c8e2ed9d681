-- Failed-login counters per email+IP pair and per IP, so brute-force locks survive restarts.
CREATE TABLE login_throttle (
    key                 TEXT PRIMARY KEY,     -- 'pair:<sha256(email)>|<ip>' or 'ip:<ip>'
    failures            INTEGER NOT NULL,
    window_started_at   INTEGER NOT NULL,
    last_failure_at     INTEGER NOT NULL,     -- milliseconds, to tell failures under a second apart
    locked_until        INTEGER               -- Unix seconds; NULL when not locked
) WITHOUT ROWID;
