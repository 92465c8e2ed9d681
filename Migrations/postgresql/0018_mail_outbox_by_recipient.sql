-- 0018_mail_outbox_by_recipient (PostgreSQL), as Migrations/0018_mail_outbox_by_recipient.sql:
-- an account's queued mail is found by lower(recipient) without reading the whole outbox.
CREATE INDEX mail_outbox_by_recipient ON mail_outbox ((lower(recipient)));
