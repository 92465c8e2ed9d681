-- 0019_refresh_families_in_grants: a one-row refresh-token family lives in its grant's row (issue #18).
--
-- A family (migration 0017) and its grant are one to one, and every refresh read both: three
-- B-trees (the family table, the grants' key index and the grants' table), each descended from its
-- root again after any other connection's commit, since SQLite then drops a reader's page cache.
-- At a million users and ten million families that was 12 page reads of a refresh's 19; in the
-- grant's row it is 8, and a rotation's conditional UPDATE reads and writes the grant's row alone
-- (its columns are in no index, so only the table's leaf page changes).
--
-- A grant whose refresh_salt is NULL has no one-row family: a machine grant, or a family stored
-- before migration 0017, whose tokens stay in refresh_tokens until one rotates into a family here.
-- The family is revoked and deleted with its grant, as before.
ALTER TABLE grants ADD COLUMN refresh_generation INTEGER;  -- the live token's; every lower one was rotated
ALTER TABLE grants ADD COLUMN refresh_salt BLOB;           -- random per family, mixed into every MAC of it
ALTER TABLE grants ADD COLUMN refresh_issued_at INTEGER;   -- the family's first token
ALTER TABLE grants ADD COLUMN refresh_expires_at INTEGER;  -- absolute lifetime of the family
ALTER TABLE grants ADD COLUMN refresh_rotated_at INTEGER;  -- last rotation (the live token's issue; the idle window counts from it)

UPDATE grants SET refresh_generation = f.generation, refresh_salt = f.salt, refresh_issued_at = f.issued_at,
    refresh_expires_at = f.expires_at, refresh_rotated_at = f.rotated_at
FROM refresh_families f WHERE f.grant_id = grants.grant_id;

DROP TABLE refresh_families;
