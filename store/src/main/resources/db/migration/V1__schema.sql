-- Relaybox schema. Column names follow the seed articles where they name them.
-- Every row that drives work has a status; workflows change it only through activities.

-- Outbound -------------------------------------------------------------------

-- A documented contract: any application sharing this database may insert a row here
-- (id, aggregate_type, aggregate_id, event_type, payload); Relaybox does the rest.
CREATE TABLE outbox_events (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregate_type  text        NOT NULL,
    aggregate_id    text        NOT NULL,
    event_type      text        NOT NULL,
    payload         jsonb       NOT NULL,
    idempotency_key text        UNIQUE,
    request_hash    text,
    status          text        NOT NULL DEFAULT 'PENDING'
                    CHECK (status IN ('PENDING', 'DISPATCHED', 'PROCESSED')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    dispatched_at   timestamptz,
    processed_at    timestamptz
);
-- The dispatcher's claim query: oldest undispatched first.
CREATE INDEX outbox_events_undispatched ON outbox_events (created_at) WHERE dispatched_at IS NULL;
-- The reconciler's and admin view's query: unfinished rows by age.
CREATE INDEX outbox_events_status_created ON outbox_events (status, created_at);

CREATE TABLE endpoints (
    id                         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name                       text        NOT NULL UNIQUE,
    url                        text        NOT NULL,
    secret                     text        NOT NULL,
    -- During rotation the previous secret keeps signing (a second signature) until it expires.
    previous_secret            text,
    previous_secret_expires_at timestamptz,
    event_types                text[]      NOT NULL DEFAULT '{*}',
    enabled                    boolean     NOT NULL DEFAULT true,
    disabled_reason            text,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE deliveries (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    outbox_id       uuid        NOT NULL REFERENCES outbox_events (id),
    endpoint_id     uuid        NOT NULL REFERENCES endpoints (id),
    status          text        NOT NULL DEFAULT 'PENDING'
                    CHECK (status IN ('PENDING', 'RETRYING', 'DELIVERED', 'DEAD_LETTERED', 'CANCELLED')),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_status     integer,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    completed_at    timestamptz,
    UNIQUE (outbox_id, endpoint_id)
);
CREATE INDEX deliveries_status_next_attempt ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_endpoint_status ON deliveries (endpoint_id, status);

CREATE TABLE delivery_attempts (
    id               bigserial   PRIMARY KEY,
    delivery_id      uuid        NOT NULL REFERENCES deliveries (id),
    attempt          integer     NOT NULL,
    started_at       timestamptz NOT NULL,
    status_code      integer,
    latency_ms       integer     NOT NULL,
    response_excerpt text,
    error            text
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);

-- Inbound --------------------------------------------------------------------

CREATE TABLE webhook_inbox (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    partner_name       text        NOT NULL,
    partner_event_id   text        NOT NULL,
    event_type         text,
    aggregate_type     text,
    aggregate_id       text,
    payload            jsonb       NOT NULL,
    signature_verified boolean     NOT NULL,
    status             text        NOT NULL DEFAULT 'RECEIVED'
                       CHECK (status IN ('RECEIVED', 'DEFERRED', 'PROCESSED', 'QUARANTINED')),
    -- How a PROCESSED row was processed: APPLIED or STALE.
    outcome            text,
    attempts           integer     NOT NULL DEFAULT 0,
    defer_reason       text,
    last_error         text,
    received_at        timestamptz NOT NULL DEFAULT now(),
    dispatched_at      timestamptz,
    processed_at       timestamptz,
    UNIQUE (partner_name, partner_event_id)
);
CREATE INDEX webhook_inbox_undispatched ON webhook_inbox (received_at) WHERE dispatched_at IS NULL;
CREATE INDEX webhook_inbox_status_received ON webhook_inbox (status, received_at);
CREATE INDEX webhook_inbox_aggregate ON webhook_inbox (aggregate_type, aggregate_id, status);

-- The state each aggregate has reached through applied inbox events.
CREATE TABLE entities (
    aggregate_type text        NOT NULL,
    aggregate_id   text        NOT NULL,
    state          text        NOT NULL,
    version        integer     NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (aggregate_type, aggregate_id)
);

-- Both directions ------------------------------------------------------------

CREATE TABLE dead_letters (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    source      text        NOT NULL CHECK (source IN ('OUTBOX', 'INBOX')),
    -- deliveries.id for OUTBOX, webhook_inbox.id for INBOX.
    reference   uuid        NOT NULL,
    reason      text        NOT NULL,
    last_error  text,
    attempts    integer     NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    resolved_by text,
    resolution  text
);
-- At most one open dead letter per source row: recording it twice is harmless.
CREATE UNIQUE INDEX dead_letters_open_reference ON dead_letters (source, reference) WHERE resolved_at IS NULL;
CREATE INDEX dead_letters_open_created ON dead_letters (created_at) WHERE resolved_at IS NULL;

-- Wake the dispatcher as soon as a row is committed, whoever inserted it.
CREATE FUNCTION relaybox_notify_dispatcher() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('relaybox_dispatch', TG_TABLE_NAME);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
    FOR EACH STATEMENT EXECUTE FUNCTION relaybox_notify_dispatcher();
CREATE TRIGGER webhook_inbox_notify AFTER INSERT ON webhook_inbox
    FOR EACH STATEMENT EXECUTE FUNCTION relaybox_notify_dispatcher();
