-- The W3C trace context (a traceparent header's value) of the request or transaction that wrote the event, so the
-- spans of its later deliveries, or of its inbound decisions, join the producer's or the partner's trace. NULL when tracing is off or the producer sent none.
ALTER TABLE outbox_events ADD COLUMN traceparent text;
ALTER TABLE webhook_inbox ADD COLUMN traceparent text;
