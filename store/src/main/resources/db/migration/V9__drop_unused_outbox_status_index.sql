-- No statement can use outbox_events (status, created_at): the dispatcher reads the partial undispatched index,
-- retention the partial processed one, and the admin list filters status optionally, which a planner cannot turn
-- into an index range. The index only cost every insert and status change on the busiest table.
DROP INDEX IF EXISTS outbox_events_status_created;
