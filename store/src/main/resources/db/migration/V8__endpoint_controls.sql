-- Outbound controls per endpoint: rate limit, concurrency, ordering, body format, and the circuit breaker's
-- state. All of it lives here rather than in any one JVM, so every worker and instance enforces the same limits.

ALTER TABLE endpoints
    -- Requests per second (NULL: unlimited) and how many may go at once after a quiet spell.
    ADD COLUMN rate_limit     double precision CHECK (rate_limit > 0),
    ADD COLUMN rate_burst     integer          CHECK (rate_burst >= 1),
    -- Concurrent requests (NULL: unlimited).
    ADD COLUMN max_in_flight  integer          CHECK (max_in_flight >= 1),
    -- Events of one aggregate reach this endpoint in outbox order.
    ADD COLUMN ordered        boolean NOT NULL DEFAULT false,
    -- 'envelope': {"type", "timestamp", "data"} as Standard Webhooks recommends; 'raw': the payload alone.
    ADD COLUMN payload_format text    NOT NULL DEFAULT 'envelope' CHECK (payload_format IN ('envelope', 'raw'));

-- Outbox order within one transaction: created_at is the transaction's start time and ties.
ALTER TABLE outbox_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX outbox_events_aggregate_seq ON outbox_events (aggregate_type, aggregate_id, seq);

-- One row per endpoint, created on first use. Times come from the workflow clock of the asking activity.
CREATE TABLE endpoint_state (
    endpoint_id          uuid             PRIMARY KEY REFERENCES endpoints (id),
    -- GCRA: the theoretical arrival time of the next request; a request may go at (tat - burst tolerance).
    rate_tat             timestamptz,
    -- The same schedule on the real clock at the moment of sending, which evens out the jitter between a
    -- reserved slot and the request actually leaving.
    send_tat             timestamptz,
    circuit              text             NOT NULL DEFAULT 'CLOSED' CHECK (circuit IN ('CLOSED', 'OPEN')),
    consecutive_failures integer          NOT NULL DEFAULT 0,
    failing_since        timestamptz,
    opened_at            timestamptz,
    next_probe_at        timestamptz,
    -- The delivery that will send the next probe, and the one sending it now (with its lease).
    next_prober          uuid,
    probe_delivery       uuid,
    probe_lease_until    timestamptz,
    last_success_at      timestamptz,
    last_failure_at      timestamptz,
    updated_at           timestamptz      NOT NULL DEFAULT now()
);

-- A slot of max_in_flight held by one delivery; it expires so a killed worker cannot leak it.
CREATE TABLE endpoint_leases (
    delivery_id uuid        PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    endpoint_id uuid        NOT NULL REFERENCES endpoints (id),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX endpoint_leases_endpoint ON endpoint_leases (endpoint_id, expires_at);

-- What an unfinished delivery waits for before its next attempt (circuit, order, in_flight, rate), for
-- operators and for the release signal that wakes the right workflows.
ALTER TABLE deliveries
    ADD COLUMN waiting_for   text CHECK (waiting_for IN ('CIRCUIT', 'ORDER', 'IN_FLIGHT', 'RATE')),
    ADD COLUMN waiting_since timestamptz;
CREATE INDEX deliveries_endpoint_waiting ON deliveries (endpoint_id, waiting_for, waiting_since)
    WHERE waiting_for IS NOT NULL;
-- Health over the last hour reads attempts by time.
CREATE INDEX delivery_attempts_started ON delivery_attempts (started_at);
