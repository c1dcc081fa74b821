-- Inbox workflow ids used to be 'inbox-' || partner || '-' || event id, which two partners can share (partner
-- 'shop' + event 'eu-1', partner 'shop-eu' + event '1'). The new ids escape the partner. Rows stored until now keep
-- the id their workflow may be running under: everything that finds a row's workflow (the reconciler, release
-- signals to deferred events, admin links) reads this column first and derives the new id only when it is null.
ALTER TABLE webhook_inbox ADD COLUMN workflow_id text;

-- The earlier derivation exactly: Java counted UTF-16 code units against the 200 limit (a character beyond the
-- Basic Multilingual Plane counts twice) and hashed the event id's UTF-8 bytes beyond it.
UPDATE webhook_inbox
   SET workflow_id = CASE
       WHEN char_length('inbox-' || partner_name || '-' || partner_event_id)
            + char_length(regexp_replace('inbox-' || partner_name || '-' || partner_event_id,
                                         '[^\U00010000-\U0010FFFF]', '', 'g')) <= 200
       THEN 'inbox-' || partner_name || '-' || partner_event_id
       ELSE 'inbox-' || partner_name || '-sha256-' || encode(sha256(convert_to(partner_event_id, 'UTF8')), 'hex')
   END;
