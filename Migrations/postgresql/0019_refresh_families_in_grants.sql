-- 0019_refresh_families_in_grants (PostgreSQL), as Migrations/0019_refresh_families_in_grants.sql:
-- a one-row refresh-token family's columns move into its grant's row, so a refresh reads one row
-- and a rotation updates one. None of them is indexed, and the grants' pages written from now on
-- keep a fifth free, so a rotation's UPDATE can stay a heap-only tuple update (no index entry written).
ALTER TABLE grants
    ADD COLUMN refresh_generation BIGINT,
    ADD COLUMN refresh_salt BYTEA,
    ADD COLUMN refresh_issued_at BIGINT,
    ADD COLUMN refresh_expires_at BIGINT,
    ADD COLUMN refresh_rotated_at BIGINT;

UPDATE grants g SET refresh_generation = f.generation, refresh_salt = f.salt, refresh_issued_at = f.issued_at,
    refresh_expires_at = f.expires_at, refresh_rotated_at = f.rotated_at
FROM refresh_families f WHERE f.grant_id = g.grant_id;

DROP TABLE refresh_families;

ALTER TABLE grants SET (fillfactor = 80);
