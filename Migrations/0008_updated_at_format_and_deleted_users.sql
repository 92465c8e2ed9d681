-- 0008_updated_at_format_and_deleted_users: how an application's ID tokens and /userinfo write `updated_at`.
-- 'iso' (Auth0's ISO 8601 string, the default) or 'number' (OpenID Connect Core §5.1 seconds).
ALTER TABLE clients ADD COLUMN updated_at_format TEXT NOT NULL DEFAULT 'iso'
    CHECK (updated_at_format IN ('iso', 'number'));

-- The digests of the refresh tokens a deleted user held, until they would have expired, so a
-- refresh with one gets Auth0's "The refresh_token was generated for a user who doesn't exist
-- anymore." (docs/auth0-compat.md) rather than the answer for an unknown token. Filled and
-- pruned by SQLiteUserStore.delete.
CREATE TABLE deleted_user_refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
