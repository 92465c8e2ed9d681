-- 0010_reserved: a placeholder for the migration another branch owns (application branding); the
-- migrator refuses gaps, so this branch carries an empty 0010 until that one is merged, which replaces it.
SELECT 1;
