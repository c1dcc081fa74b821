-- A dead letter replayed with a corrected payload: the row's payload is replaced, and this keeps what it was, what it
-- became, what changed, who (the token's fingerprint and the name the operator gave), when and why. One row per edit;
-- the first edit of a row holds its original payload. An edit lives as long as the dead letter it resolved.
CREATE TABLE payload_edits (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    dead_letter_id   uuid        NOT NULL REFERENCES dead_letters (id) ON DELETE CASCADE,
    source           text        NOT NULL CHECK (source IN ('OUTBOX', 'INBOX')),
    -- outbox_events.id for OUTBOX, webhook_inbox.id for INBOX: the row whose payload was replaced.
    row_id           uuid        NOT NULL,
    previous_payload jsonb       NOT NULL,
    payload          jsonb       NOT NULL,
    -- [{"path": "/data/orderId", "from": ..., "to": ...}]; "from" is absent for an added value, "to" for a removed one.
    changes          jsonb       NOT NULL,
    reason           text        NOT NULL,
    actor            text        NOT NULL,
    declared_by      text,
    -- Inbound: the partner signed the original only.
    signature_note   text,
    edited_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payload_edits_row ON payload_edits (row_id, edited_at);
CREATE INDEX payload_edits_dead_letter ON payload_edits (dead_letter_id);
