-- Retention finds finished rows by age, oldest first, and checks whether any dead letter still refers to a
-- row. Partial indexes keep these cheap on tables where finished rows are the bulk.
CREATE INDEX outbox_events_processed ON outbox_events (processed_at) WHERE status = 'PROCESSED';
CREATE INDEX webhook_inbox_processed ON webhook_inbox (processed_at) WHERE status = 'PROCESSED';
CREATE INDEX dead_letters_resolved ON dead_letters (resolved_at) WHERE resolved_at IS NOT NULL;
CREATE INDEX dead_letters_reference ON dead_letters (reference);
