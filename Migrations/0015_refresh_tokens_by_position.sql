-- 0015_refresh_tokens_by_position: refresh tokens that name their place in their family.
--
-- A token issued from now on carries its family (grant_id) and generation (OIDC
-- RefreshTokenValue), so it is found by the primary key and its digest checked there; a
-- rotation then writes the family's page and no index keyed by a random digest (issue #18:
-- that index grew to a gigabyte at ten million tokens and every rotation dirtied a random page
-- of it). Tokens issued before keep working by their digest: the index now covers them alone.
ALTER TABLE refresh_tokens ADD COLUMN found_by_hash INTEGER NOT NULL DEFAULT 1;  -- 0: found by (grant_id, generation)
DROP INDEX refresh_tokens_by_hash;
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash) WHERE found_by_hash = 1;
