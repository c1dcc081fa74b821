-- Notify only when a row was really inserted: a statement-level trigger also fired for
-- INSERT ... ON CONFLICT DO NOTHING that inserted nothing (every duplicate webhook), waking the
-- dispatcher for an empty pass. PostgreSQL folds identical notifications of one transaction into one,
-- so a batch insert still sends a single NOTIFY.
DROP TRIGGER outbox_events_notify ON outbox_events;
DROP TRIGGER webhook_inbox_notify ON webhook_inbox;

CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
    FOR EACH ROW EXECUTE FUNCTION relaybox_notify_dispatcher();
CREATE TRIGGER webhook_inbox_notify AFTER INSERT ON webhook_inbox
    FOR EACH ROW EXECUTE FUNCTION relaybox_notify_dispatcher();
