-- 0017_refresh_families: one row per refresh-token family, whatever its generation (issue #18).
--
-- A token issued from now on is `rt2.<grant_id>.<generation>.<mac>` (OIDC RefreshTokenValue): the
-- MAC, under a key derived from the key-encryption key, covers the grant, the generation and this
-- family's salt, so nothing secret is stored and a rotation is one conditional UPDATE of this row
-- (generation + 1 WHERE generation is the presented one): no INSERT, no index entry, and no row
-- kept per rotated token, since a valid MAC at an older generation is itself the proof of reuse.
-- The family is revoked with its grant (grants.revoked_at), so every revocation path already
-- covers it. No secondary index: every column that changes on rotation stays out of indexes.
-- Tokens issued before (refresh_tokens, rt1 and digest-only) keep working and rotate into a row here.
CREATE TABLE refresh_families (
    grant_id    TEXT PRIMARY KEY REFERENCES grants (grant_id) ON DELETE CASCADE,
    generation  INTEGER NOT NULL,   -- the one live token's; every lower one was rotated
    salt        BLOB NOT NULL,      -- random per family, mixed into every MAC of it
    issued_at   INTEGER NOT NULL,   -- the family's first token
    expires_at  INTEGER NOT NULL,   -- absolute lifetime of the family
    rotated_at  INTEGER             -- last rotation (the live token's issue; the idle window counts from it)
) WITHOUT ROWID;
