-- A partner event forwarded by an inbound route: which partner and partner event it is, and the only endpoints it
-- goes to. NULL targets: an ordinary row, fanned out to every endpoint subscribed to its type.
ALTER TABLE outbox_events
    ADD COLUMN source_partner   text,
    ADD COLUMN source_event_id  text,
    ADD COLUMN target_endpoints text[];
