-- The admin story finds an inbound event by its partner event id alone (the operator may not know the partner);
-- the unique key leads with the partner name, so without this the lookup reads the whole inbox.
CREATE INDEX webhook_inbox_partner_event_id ON webhook_inbox (partner_event_id, received_at);
