-- The W3C trace context (a traceparent header's value) of the request or transaction that wrote the event, so the
-- spans of its later deliveries join the producer's trace. NULL when tracing is off or the producer sent none.
ALTER TABLE outbox_events ADD COLUMN traceparent text;
