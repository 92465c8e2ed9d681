-- 0018_mail_outbox_by_recipient: deleting an account removes the mail still queued to its address
-- (SQLiteAccountDeletion) by lower(recipient), inside the write transaction that deletes the
-- user. Without this index that statement read the whole outbox (a week of sent mail) while every
-- other writer waited (issue #18: no operation holds the write lock for more than a few ms).
CREATE INDEX mail_outbox_by_recipient ON mail_outbox (lower(recipient));
