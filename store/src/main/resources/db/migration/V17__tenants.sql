-- Tenants: the operator's own customers (the key is the operator's, e.g. "acme"). An endpoint and an outbox event
-- may belong to one; an event is fanned out only to endpoints of its own tenant, and an event without a tenant only
-- to endpoints without one, as before.
CREATE TABLE tenants (
    key        text        PRIMARY KEY CHECK (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
    name       text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    metadata   jsonb       NOT NULL DEFAULT '{}',
    -- The portal's look for this tenant: {"title", "logoUrl", "accentColor"}, each optional.
    theme      jsonb       NOT NULL DEFAULT '{}',
    enabled    boolean     NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Endpoint names are unique among the operator's endpoints and within each tenant, so one customer's names say
-- nothing about another's.
ALTER TABLE endpoints ADD COLUMN tenant text REFERENCES tenants (key);
ALTER TABLE endpoints DROP CONSTRAINT endpoints_name_key;
CREATE UNIQUE INDEX endpoints_operator_name ON endpoints (name) WHERE tenant IS NULL;
CREATE UNIQUE INDEX endpoints_tenant_name ON endpoints (tenant, name) WHERE tenant IS NOT NULL;

-- A tenant's idempotency keys are its own: they live in their own column, unique per tenant, so the operator's
-- (idempotency_key, unique as before) and every release of the producer library keep working unchanged.
ALTER TABLE outbox_events
    ADD COLUMN tenant                 text REFERENCES tenants (key),
    ADD COLUMN tenant_idempotency_key text,
    ADD CONSTRAINT outbox_events_tenant_key_needs_tenant CHECK (tenant_idempotency_key IS NULL OR tenant IS NOT NULL);
CREATE UNIQUE INDEX outbox_events_tenant_idempotency ON outbox_events (tenant, tenant_idempotency_key);
-- The dispatcher's fair claim: each tenant's oldest undispatched rows, found tenant by tenant.
CREATE INDEX outbox_events_undispatched_by_tenant ON outbox_events ((coalesce(tenant, '')), created_at)
    WHERE dispatched_at IS NULL;

-- Portal links: each one a session the operator can revoke; the token names the session and is sealed.
CREATE TABLE portal_sessions (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant     text        NOT NULL REFERENCES tenants (key),
    created_by text        NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_sessions_tenant ON portal_sessions (tenant);
