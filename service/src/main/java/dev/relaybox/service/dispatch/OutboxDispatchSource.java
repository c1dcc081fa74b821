package dev.relaybox.service.dispatch;

import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** Outbox rows: each becomes an {@code outbox-<uuid>} delivery workflow. */
public final class OutboxDispatchSource implements DispatchSource {
    private static final RowMapper<Row> ROW = (rs, ctx) -> {
        UUID id = rs.getObject("id", UUID.class);
        String eventType = rs.getString("event_type");
        String aggregate = rs.getString("aggregate_type") + ":" + rs.getString("aggregate_id");
        return new Row(id, OutboxDeliveryWorkflow.workflowId(id), eventType, aggregate, null,
                "deliver " + eventType + " for " + aggregate + " to its subscribers");
    };

    private final WorkflowStarter starter;

    public OutboxDispatchSource(WorkflowStarter starter) {
        this.starter = starter;
    }

    @Override
    public String name() {
        return "outbox";
    }

    @Override
    public List<Row> claimUndispatched(Handle handle, int limit) {
        return handle.createQuery("""
                        SELECT id, event_type, aggregate_type, aggregate_id FROM outbox_events
                         WHERE dispatched_at IS NULL
                         ORDER BY created_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("limit", limit)
                .map(ROW)
                .list();
    }

    @Override
    public void markDispatched(Handle handle, List<UUID> ids) {
        handle.createUpdate("""
                        UPDATE outbox_events SET dispatched_at = now(),
                               status = CASE WHEN status = 'PENDING' THEN 'DISPATCHED' ELSE status END
                         WHERE id = ANY(:ids)""")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return handle.createQuery("""
                        SELECT id, event_type, aggregate_type, aggregate_id FROM outbox_events
                         WHERE status = 'DISPATCHED' AND dispatched_at < :before
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
        // A running workflow is told to plan again: a replayed delivery joins it instead of waiting for the reconciler.
        starter.signalWithStart(OutboxDeliveryWorkflow.TYPE, row, "outbound", row.id(), "replan");
    }
}
