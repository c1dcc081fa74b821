-- A delivery to a disabled endpoint is kept, PAUSED, and resumed when the endpoint is enabled again,
-- instead of never being created (events were silently lost while an endpoint was disabled).
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
    CHECK (status IN ('PENDING', 'RETRYING', 'PAUSED', 'DELIVERED', 'DEAD_LETTERED', 'CANCELLED'));
-- Resuming finds an endpoint's paused deliveries.
CREATE INDEX deliveries_endpoint_paused ON deliveries (endpoint_id) WHERE status = 'PAUSED';
