-- 0017_refresh_families (PostgreSQL): one row per refresh-token family, as
-- Migrations/0017_refresh_families.sql. No column of it is indexed but the key and there is room
-- left on each page, so a rotation's UPDATE is a heap-only tuple update.
CREATE TABLE refresh_families (
    grant_id    TEXT PRIMARY KEY REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation  BIGINT NOT NULL,
    salt        BYTEA NOT NULL,
    issued_at   BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    rotated_at  BIGINT
) WITH (fillfactor = 80);
