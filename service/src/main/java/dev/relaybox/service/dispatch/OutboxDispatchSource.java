package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** Outbox rows: each becomes an {@code outbox-<uuid>} delivery workflow. */
public final class OutboxDispatchSource implements DispatchSource {
    /**
     * The largest payload dispatched. {@code POST /outbox} refuses far smaller bodies, but rows inserted by plain SQL
     * meet no limit; 2 MiB is Temporal's payload limit, so a body within it can travel through the engine wherever
     * a workflow needs it, and receivers refuse webhooks that large long before.
     */
    static final long MAX_PAYLOAD_BYTES = 2L * 1024 * 1024;

    private static final RowMapper<Row> ROW = (rs, ctx) -> {
        UUID id = rs.getObject("id", UUID.class);
        String eventType = rs.getString("event_type");
        String aggregate = rs.getString("aggregate_type") + ":" + rs.getString("aggregate_id");
        long payloadBytes = rs.getLong("payload_bytes");
        return new Row(id, OutboxDeliveryWorkflow.workflowId(id), eventType, aggregate, null,
                "deliver " + eventType + " for " + aggregate + " to its subscribers",
                payloadBytes > MAX_PAYLOAD_BYTES
                        ? "payload is larger than 2 MiB (" + payloadBytes + " bytes), the most Relaybox delivers"
                        : null);
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
                        SELECT id, event_type, aggregate_type, aggregate_id, octet_length(payload::text) AS payload_bytes
                          FROM outbox_events
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
    public void markUndispatched(Handle handle, List<UUID> ids) {
        handle.createUpdate("""
                        UPDATE outbox_events SET dispatched_at = NULL,
                               status = CASE WHEN status = 'DISPATCHED' THEN 'PENDING' ELSE status END
                         WHERE id = ANY(:ids)""")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    @Override
    public boolean quarantine(Handle handle, UUID id, String reason) {
        // The reason lives in the dead letter: the documented table keeps its contract columns only.
        return handle.createUpdate("""
                        UPDATE outbox_events SET status = 'QUARANTINED', dispatched_at = now()
                         WHERE id = :id AND status IN ('PENDING', 'DISPATCHED')""")
                .bind("id", id)
                .execute() == 1;
    }

    @Override
    public DeadLetters.Source deadLetterSource() {
        return DeadLetters.Source.OUTBOX;
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return handle.createQuery("""
                        SELECT id, event_type, aggregate_type, aggregate_id, 0 AS payload_bytes FROM outbox_events o
                         WHERE status = 'DISPATCHED' AND dispatched_at < :before
                           -- Every delivery finished but the row not (or none planned yet), or one whose next attempt
                           -- was due, or that has not moved, since before: its workflow should have acted by then.
                           AND (NOT EXISTS (SELECT 1 FROM deliveries d
                                             WHERE d.outbox_id = o.id AND d.status IN ('PENDING', 'RETRYING'))
                                OR EXISTS (SELECT 1 FROM deliveries d
                                            WHERE d.outbox_id = o.id AND d.status IN ('PENDING', 'RETRYING')
                                              AND COALESCE(d.next_attempt_at, d.updated_at) < :before))
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

    @Override
    public boolean restart(Row row) {
        // No replan signal: a running workflow already has every delivery the reconciler could find.
        return starter.start(OutboxDeliveryWorkflow.TYPE, row, "outbound", row.id());
    }
}
