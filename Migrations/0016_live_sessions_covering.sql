-- 0016_live_sessions_covering: the live-sessions gauge (`/metrics` gatehouse_active_sessions)
-- counts from the index alone. The partial index of 0012 lacked `ended_at`, which the count names,
-- so every entry also read its table row (0.35 s at 700,000 live sessions; issue #18).
DROP INDEX sessions_live_by_expiry;
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at, ended_at) WHERE ended_at IS NULL;
