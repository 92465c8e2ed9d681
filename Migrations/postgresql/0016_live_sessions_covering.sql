-- 0016_live_sessions_covering (PostgreSQL): the live-sessions count from the index alone, as
-- Migrations/0016_live_sessions_covering.sql.
DROP INDEX sessions_live_by_expiry;
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at, ended_at) WHERE ended_at IS NULL;
