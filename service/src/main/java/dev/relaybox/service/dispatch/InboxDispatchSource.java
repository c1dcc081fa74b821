package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** Inbox rows: each becomes an {@code inbox-<partner>-<event id>} workflow (see {@link InboxEventWorkflow#workflowIdOf}). */
public final class InboxDispatchSource implements DispatchSource {
    private static final RowMapper<Row> ROW = (rs, ctx) -> {
        String partner = rs.getString("partner_name");
        String eventType = rs.getString("event_type");
        String aggregate = rs.getString("aggregate_id") == null
                ? null
                : rs.getString("aggregate_type") + ":" + rs.getString("aggregate_id");
        return new Row(rs.getObject("id", UUID.class),
                InboxEventWorkflow.workflowIdOf(rs.getString("workflow_id"), partner, rs.getString("partner_event_id")), eventType, aggregate, partner,
                "apply " + (eventType == null ? "an event without a type" : eventType) + " from " + partner
                        + (aggregate == null ? "" : " to " + aggregate));
    };

    private final WorkflowStarter starter;

    public InboxDispatchSource(WorkflowStarter starter) {
        this.starter = starter;
    }

    @Override
    public String name() {
        return "inbox";
    }

    @Override
    public List<Row> claimUndispatched(Handle handle, int limit) {
        return handle.createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id
                          FROM webhook_inbox
                         WHERE dispatched_at IS NULL
                         ORDER BY received_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("limit", limit)
                .map(ROW)
                .list();
    }

    @Override
    public void markDispatched(Handle handle, List<UUID> ids) {
        handle.createUpdate("UPDATE webhook_inbox SET dispatched_at = now() WHERE id = ANY(:ids)")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    @Override
    public void markUndispatched(Handle handle, List<UUID> ids) {
        handle.createUpdate("UPDATE webhook_inbox SET dispatched_at = NULL WHERE id = ANY(:ids)")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    @Override
    public boolean quarantine(Handle handle, UUID id, String reason) {
        return handle.createUpdate("""
                        UPDATE webhook_inbox SET status = 'QUARANTINED', last_error = :reason, dispatched_at = now()
                         WHERE id = :id AND status IN ('RECEIVED', 'DEFERRED')""")
                .bind("id", id)
                .bind("reason", reason)
                .execute() == 1;
    }

    @Override
    public DeadLetters.Source deadLetterSource() {
        return DeadLetters.Source.INBOX;
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return handle.createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id
                          FROM webhook_inbox
                         WHERE status IN ('RECEIVED', 'DEFERRED') AND dispatched_at < :before
                           -- A received row is decided as soon as its workflow runs; a deferred one is waiting for its
                           -- recheck or release (rows deferred before the time was recorded count as due).
                           AND (status = 'RECEIVED' OR next_recheck_at IS NULL OR next_recheck_at < :before)
                         ORDER BY dispatched_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("before", before)
                .bind("limit", limit)
                .map(ROW)
                .list();
    }

    @Override
    public void start(Row row) {
        starter.start(InboxEventWorkflow.TYPE, row, "inbound", row.id());
    }

    @Override
    public boolean restart(Row row) {
        return starter.start(InboxEventWorkflow.TYPE, row, "inbound", row.id());
    }
}
