-- 0012_hot_path_indexes: operations that read every row at a million users (README "Tests and
-- benchmarks", the plan check in StorageTests/QueryPlanTests).

-- `idp-admin users list` pages in creation order: an index walk, not a sort of every user.
CREATE INDEX users_by_creation ON users (created_at, user_id);

-- The live-sessions gauge counts the live sessions only, from a small covering index.
CREATE INDEX sessions_live_by_expiry ON sessions (expires_at) WHERE ended_at IS NULL;

-- Deleting or revoking a user finds their pending codes by user, not by reading every code (the
-- foreign key's cascade included).
CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);

-- Deleting a user forgets the deleted users' tokens that expired by a range of this index.
CREATE INDEX deleted_user_refresh_tokens_by_expiry ON deleted_user_refresh_tokens (expires_at);
