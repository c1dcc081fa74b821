-- An outbox row that can never start a workflow (inserted by plain SQL past what Relaybox can carry) is taken out
-- of the flow as QUARANTINED, with a dead letter that references the row itself.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_status_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_status_check
    CHECK (status IN ('PENDING', 'DISPATCHED', 'PROCESSED', 'QUARANTINED'));
