-- 0020_revoked_grants (PostgreSQL), as Migrations/0020_revoked_grants.sql: an opaque access token
-- is checked against the users' grants revoked while its kind of token may still be unexpired,
-- not against its grant's row. Each application keeps the longest access-token lifetime it has
-- ever had, which bounds how long such a row must live.
ALTER TABLE clients ADD COLUMN longest_access_token_lifetime BIGINT NOT NULL DEFAULT 0;
UPDATE clients SET longest_access_token_lifetime = access_token_lifetime;

CREATE FUNCTION gatehouse_longest_access_token_lifetime() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        NEW.longest_access_token_lifetime := GREATEST(NEW.longest_access_token_lifetime, OLD.longest_access_token_lifetime);
    END IF;
    NEW.longest_access_token_lifetime := GREATEST(NEW.longest_access_token_lifetime, NEW.access_token_lifetime);
    RETURN NEW;
END $$;
CREATE TRIGGER clients_longest_access_token_lifetime BEFORE INSERT OR UPDATE ON clients
    FOR EACH ROW EXECUTE FUNCTION gatehouse_longest_access_token_lifetime();

CREATE TABLE revoked_grants (
    grant_id    TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX revoked_grants_by_expiry ON revoked_grants (expires_at);

-- Machine grants are left out (their JWTs are checked against the grant's row); 2592000 s stands
-- in for an application that is gone.
CREATE FUNCTION gatehouse_remember_revoked_grant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO revoked_grants (grant_id, expires_at)
    VALUES (NEW.grant_id, NEW.revoked_at
        + COALESCE((SELECT longest_access_token_lifetime FROM clients WHERE client_id = NEW.client_id), 2592000))
    ON CONFLICT (grant_id) DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_revoked_remembered AFTER UPDATE OF revoked_at ON grants
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.user_id IS NOT NULL)
    EXECUTE FUNCTION gatehouse_remember_revoked_grant();

INSERT INTO revoked_grants (grant_id, expires_at)
SELECT g.grant_id, g.revoked_at + COALESCE(c.longest_access_token_lifetime, 2592000)
FROM grants g LEFT JOIN clients c ON c.client_id = g.client_id
WHERE g.revoked_at IS NOT NULL AND g.user_id IS NOT NULL
ON CONFLICT (grant_id) DO NOTHING;
