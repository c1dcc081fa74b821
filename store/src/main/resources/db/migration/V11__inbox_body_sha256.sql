-- The SHA-256 of the body as received, so that a second delivery under the same partner event id is told apart: the
-- same body is a duplicate, a different one a conflict (refused, the first body kept). Rows stored before this column
-- have no hash, and a delivery under their id is taken as a duplicate.
ALTER TABLE webhook_inbox ADD COLUMN IF NOT EXISTS body_sha256 bytea;
