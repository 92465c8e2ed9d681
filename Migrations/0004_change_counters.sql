-- Change counters for what the daemon caches in memory. Triggers bump a counter on every change
-- to its tables, whichever process makes it (idp or idp-admin), so a cached entry is used only
-- while the counter it was loaded under is unchanged: one tiny read instead of reloading the rows.

CREATE TABLE change_counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;

-- 'clients': applications and their allow-lists (SQLiteClientStore.find).
INSERT INTO change_counters (name, value) VALUES ('clients', 0);

CREATE TRIGGER clients_changed_on_insert AFTER INSERT ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER clients_changed_on_update AFTER UPDATE ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER clients_changed_on_delete AFTER DELETE ON clients
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_insert AFTER INSERT ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_update AFTER UPDATE ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
CREATE TRIGGER client_urls_changed_on_delete AFTER DELETE ON client_allowed_urls
BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'clients'; END;
