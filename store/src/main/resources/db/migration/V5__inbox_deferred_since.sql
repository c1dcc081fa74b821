-- When the row's current deferral began, on the workflow's clock: a workflow that continues as new (a long
-- deferral) or is restarted by the reconciler keeps counting its maximum deferral from here instead of afresh.
ALTER TABLE webhook_inbox ADD COLUMN IF NOT EXISTS deferred_since timestamptz;
