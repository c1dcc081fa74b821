-- Where an endpoint's deliveries go when not to an HTTP URL: the broker's settings and credentials as JSON, sealed like
-- the signing secrets. NULL: an HTTP endpoint. The endpoint's url names the broker.
ALTER TABLE endpoints ADD COLUMN destination text;
