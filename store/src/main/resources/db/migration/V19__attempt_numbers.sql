-- An attempt's number counts every request made for its delivery, so no number is shown twice. Beside it: the
-- schedule it belongs to (a replay or a resend starts a new one, numbered from 1 again), its number within it, and
-- why it was made again when it repeats a number of its schedule. Rows from before count as schedule 1.
ALTER TABLE deliveries ADD COLUMN schedule integer NOT NULL DEFAULT 1;
ALTER TABLE delivery_attempts
    ADD COLUMN schedule           integer,
    ADD COLUMN scheduled_attempt  integer,
    ADD COLUMN again              text;
