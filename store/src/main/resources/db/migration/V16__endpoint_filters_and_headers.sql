-- What an endpoint asks of each event beyond its event types. A payload filter on the event's data (the
-- PayloadFilter JSON, validated on write; NULL: every payload): an event it does not match gets no delivery.
-- Static headers added to every request, as a JSON object of name to value sealed like the signing secret
-- (NULL: none).
ALTER TABLE endpoints
    ADD COLUMN payload_filter jsonb,
    ADD COLUMN headers        text;
