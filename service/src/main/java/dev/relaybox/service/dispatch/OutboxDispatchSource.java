package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.OutboxStore;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** Outbox rows: each becomes an {@code outbox-<uuid>} delivery workflow. */
public final class OutboxDispatchSource implements DispatchSource {
    /**
     * The largest payload dispatched. {@code POST /outbox} refuses far smaller bodies, but rows inserted by plain SQL
     * meet no limit; 2 MiB is Temporal's payload limit, so a body within it can travel through the engine wherever
     * a workflow needs it, and receivers refuse webhooks that large long before.
     */
    static final long MAX_PAYLOAD_BYTES = 2L * 1024 * 1024;

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
        return handle.attach(OutboxStore.class).claimUndispatched(limit).stream()
                .map(OutboxDispatchSource::row)
                .toList();
    }

    @Override
    public void markDispatched(Handle handle, List<UUID> ids) {
        handle.attach(OutboxStore.class).markDispatched(ids);
    }

    @Override
    public void markUndispatched(Handle handle, List<UUID> ids) {
        handle.attach(OutboxStore.class).markUndispatched(ids);
    }

    @Override
    public boolean quarantine(Handle handle, UUID id, String reason) {
        // The reason lives in the dead letter the caller records: the documented table keeps its contract columns only.
        return handle.attach(OutboxStore.class).quarantine(id);
    }

    @Override
    public DeadLetters.Source deadLetterSource() {
        return DeadLetters.Source.OUTBOX;
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return handle.attach(OutboxStore.class).claimStranded(before, limit).stream()
                .map(OutboxDispatchSource::row)
                .toList();
    }

    @Override
    public Optional<Row> find(Handle handle, UUID id) {
        return handle.attach(OutboxStore.class)
                .event(id)
                .map(event -> row(new OutboxStore.Claimed(event.id(), event.eventType(), event.aggregate(), 0)));
    }

    @Override
    public List<Row> claimUnfinished(Handle handle, Instant before, int limit) {
        return handle.attach(OutboxStore.class).claimStranded(before, LATER_THAN_ANY_RECORDED_TIME, limit).stream()
                .map(OutboxDispatchSource::row)
                .toList();
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

    private static Row row(OutboxStore.Claimed claimed) {
        String aggregate = claimed.aggregate().toString();
        return new Row(
                claimed.id(),
                OutboxDeliveryWorkflow.workflowId(claimed.id()),
                claimed.eventType(),
                aggregate,
                null,
                "deliver " + claimed.eventType() + " for " + aggregate + " to its subscribers",
                "outbox event " + claimed.id() + " (the webhook-id receivers see)\n" + Row.storyLine(claimed.id()),
                claimed.payloadBytes() > MAX_PAYLOAD_BYTES
                        ? "payload is larger than 2 MiB (" + claimed.payloadBytes()
                                + " bytes), the most Relaybox delivers"
                        : null);
    }
}
