-- 0015_refresh_tokens_by_position (PostgreSQL): refresh tokens that name their place, as
-- Migrations/0015_refresh_tokens_by_position.sql: the digest index keeps only the tokens found by it.
ALTER TABLE refresh_tokens ADD COLUMN found_by_hash BIGINT NOT NULL DEFAULT 1;
DROP INDEX refresh_tokens_by_hash;
CREATE UNIQUE INDEX refresh_tokens_by_hash ON refresh_tokens (token_hash) WHERE found_by_hash = 1;
