-- What operators changed, kept for good: one row per change, each sealed with the SHA-256 of the seal before it and
-- of its own content, so a row altered, removed or inserted out of place breaks the chain (`relaybox audit`
-- verifies it). Nothing references it and retention never touches it: it outlives the dead letters and events it
-- speaks of. UPDATE, DELETE and TRUNCATE are refused.
CREATE TABLE audit_log (
    seq           bigint      PRIMARY KEY CHECK (seq > 0),
    recorded_at   timestamptz NOT NULL,
    actor         text        NOT NULL,
    action        text        NOT NULL,
    subject       uuid,
    details       jsonb       NOT NULL,
    previous_hash text        NOT NULL,
    hash          text        NOT NULL
);

-- The seal of one entry. Time as UTC text and details as jsonb's own text, so it reads the same under any session
-- setting; fields one per line, each free text JSON-quoted, so no two contents read the same.
CREATE FUNCTION audit_hash(previous_hash text, seq bigint, recorded_at timestamptz, actor text, action text,
                           subject uuid, details jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(sha256(convert_to(
               previous_hash || E'\n' || seq::text || E'\n'
               || to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || E'\n'
               || to_jsonb(actor)::text || E'\n' || to_jsonb(action)::text || E'\n'
               || coalesce(subject::text, '-') || E'\n' || details::text,
               'UTF8')), 'hex')
$$;

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END
$$;
CREATE TRIGGER audit_log_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_is_append_only();

-- A corrected payload for one delivery's replay: the event's own payload stays what every other endpoint was sent.
ALTER TABLE deliveries ADD COLUMN edited_payload jsonb;
-- Which delivery an outbound edit corrected; null for a row quarantined before it had deliveries (its own payload).
ALTER TABLE payload_edits ADD COLUMN delivery_id uuid;
