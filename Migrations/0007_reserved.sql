-- 0007 is reserved for another branch's migration (issue #17 work in parallel); this placeholder
-- keeps the version list without gaps until that branch is merged, which replaces this file.
SELECT 1;
