-- When a deferred event decides again at the latest: at its recheck, or at once after the event it waits for has
-- applied (a release). With deliveries.next_attempt_at it is the schedule the reconciler reads: a row is re-driven
-- only when this time is overdue by more than the grace (its workflow was lost), never while it is waiting.
ALTER TABLE webhook_inbox ADD COLUMN IF NOT EXISTS next_recheck_at timestamptz;
