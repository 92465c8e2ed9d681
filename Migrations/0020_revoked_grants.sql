-- 0020_revoked_grants: an opaque access token is checked against the grants revoked lately, not
-- against its grant's row (issue #18).
--
-- An opaque access token (README "Opaque access tokens") is sealed by us and names its user, its
-- application and its grant. /userinfo read the grant's row only to learn whether the grant was
-- revoked: two B-trees (the grants' key index and table) that at a million grants no longer fit a
-- connection's page cache. This table holds just the users' grants revoked while access tokens
-- minted under them may still be unexpired, so it stays as small as the revocations of one
-- access-token lifetime, and the check reads it, the application's row and the user's.
--
-- A grant leaves `grants` without a revocation only
--   * through the purge, once every access token minted under it has expired, by the longest
--     lifetime the application has had (PurgeRules' FamilyRule);
--   * with its user (the check then finds no user) or its application (no application).
-- So a grant missing from `grants` but not revoked leaves nothing to remember here.
--
-- A row lives until the last access token minted before the revocation has expired: the
-- revocation plus the longest access-token lifetime the application has ever had. An application
-- whose lifetime was lowered may still have tokens out with the longer one, hence the high-water
-- mark below rather than the current lifetime.
ALTER TABLE clients ADD COLUMN longest_access_token_lifetime INTEGER NOT NULL DEFAULT 0;
UPDATE clients SET longest_access_token_lifetime = access_token_lifetime;

CREATE TRIGGER clients_longest_access_token_lifetime_on_insert AFTER INSERT ON clients
WHEN NEW.access_token_lifetime > NEW.longest_access_token_lifetime
BEGIN
    UPDATE clients SET longest_access_token_lifetime = NEW.access_token_lifetime WHERE client_id = NEW.client_id;
END;
CREATE TRIGGER clients_longest_access_token_lifetime_on_update AFTER UPDATE OF access_token_lifetime ON clients
WHEN NEW.access_token_lifetime > NEW.longest_access_token_lifetime
BEGIN
    UPDATE clients SET longest_access_token_lifetime = NEW.access_token_lifetime WHERE client_id = NEW.client_id;
END;

CREATE TABLE revoked_grants (
    grant_id    TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL   -- every access token minted under the grant has expired by then
) WITHOUT ROWID;
CREATE INDEX revoked_grants_by_expiry ON revoked_grants (expires_at);

-- Machine grants are left out: their tokens are JWTs, checked against the grant's row.
-- 2592000 s (30 days, the longest lifetime `idp-admin` accepts) stands in for an application that is gone.
CREATE TRIGGER grants_revoked_remembered AFTER UPDATE OF revoked_at ON grants
WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.user_id IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO revoked_grants (grant_id, expires_at)
    VALUES (NEW.grant_id, NEW.revoked_at
        + COALESCE((SELECT longest_access_token_lifetime FROM clients WHERE client_id = NEW.client_id), 2592000));
END;

-- Grants revoked before this migration; the purge drops the rows already past their expiry.
INSERT OR IGNORE INTO revoked_grants (grant_id, expires_at)
SELECT g.grant_id, g.revoked_at + COALESCE(c.longest_access_token_lifetime, 2592000)
FROM grants g LEFT JOIN clients c ON c.client_id = g.client_id
WHERE g.revoked_at IS NOT NULL AND g.user_id IS NOT NULL;
