-- The event-type catalog: each type Relaybox publishes, described for receivers, with a JSON Schema (draft 2020-12)
-- per version. A changed schema is a new version; old versions stay, since receivers may still be built on them.
-- Publishing validates a payload against its type's latest version.
CREATE TABLE event_types (
    name        text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$'),
    description text        NOT NULL DEFAULT '',
    -- A deprecated type still publishes; producers are warned.
    deprecated  boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE event_type_versions (
    event_type text        NOT NULL REFERENCES event_types (name),
    version    integer     NOT NULL CHECK (version >= 1),
    schema     jsonb       NOT NULL,
    -- A payload that validates against the schema, for receivers' documentation; NULL: none given.
    example    jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (event_type, version)
);
