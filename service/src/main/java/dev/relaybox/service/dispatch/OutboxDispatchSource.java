package dev.relaybox.service.dispatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.activities.outbound.DeliveryPlanner;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Outbox rows: each becomes an {@code outbox-<uuid>} delivery workflow. A new row is checked against the event-type
 * catalog when it is claimed ({@link PublishCheck}): rows from the producer library or plain SQL meet no other check,
 * so one the catalog refuses (a payload off its type's schema, an unknown type where none is allowed) is dead-lettered
 * with the reason and never sent. A partner event an inbound route forwards is the partner's, not the catalog's.
 */
public final class OutboxDispatchSource implements DispatchSource {
    /**
     * The largest payload dispatched. {@code POST /outbox} refuses far smaller bodies, but rows inserted by plain SQL
     * meet no limit; 2 MiB is Temporal's payload limit, so a body within it can travel through the engine wherever
     * a workflow needs it, and receivers refuse webhooks that large long before.
     */
    static final long MAX_PAYLOAD_BYTES = 2L * 1024 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final WorkflowStarter starter;
    private final PublishCheck publishing;
    private final DeliveryPlanner planner;

    /**
     * Checks new rows against the catalog as it claims them. With a {@code planner} (where this process runs the
     * worker too, so that the start hands the workflow's first task straight back), it also plans each new row in
     * the claim's transaction: the workflow starts with its plan and goes straight to the first attempts.
     */
    public OutboxDispatchSource(WorkflowStarter starter, PublishCheck publishing, DeliveryPlanner planner) {
        this.starter = starter;
        this.publishing = publishing;
        this.planner = planner;
    }

    /** For finding and starting rows that were checked when first claimed, or where no catalog applies. */
    public OutboxDispatchSource(WorkflowStarter starter) {
        this(starter, null, null);
    }

    @Override
    public String name() {
        return "outbox";
    }

    @Override
    public List<Row> claimUndispatched(Handle handle, int limit) {
        OutboxStore store = handle.attach(OutboxStore.class);
        PublishCheck.Batch checks = publishing == null ? null : publishing.batch(handle);
        return store.claimUndispatched(limit).stream()
                .map(claimed -> claimedRow(claimed, refusal(checks, store, claimed), handle))
                .toList();
    }

    /** Why the catalog refuses a new row, or null; the payload is read only when its type has a schema. */
    private static String refusal(PublishCheck.Batch checks, OutboxStore store, OutboxStore.Claimed claimed) {
        if (checks == null || claimed.forwarded() || claimed.payloadBytes() > MAX_PAYLOAD_BYTES) {
            return null;
        }
        PublishCheck.Verdict verdict = checks.check(
                claimed.eventType(), () -> json(store.payload(claimed.id()).orElseThrow()));
        return verdict.refused() ? verdict.reason() : null;
    }

    private static JsonNode json(String payload) {
        try {
            return JSON.readTree(payload);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
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
    public DeadLetterSource deadLetterSource() {
        return DeadLetterSource.OUTBOX;
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
                .map(event -> row(new OutboxStore.Claimed(
                        event.id(),
                        event.eventType(),
                        event.aggregate(),
                        0,
                        false,
                        true,
                        event.tenant(),
                        event.traceId())));
    }

    @Override
    public List<Row> claimUnfinished(Handle handle, Instant before, int limit) {
        return handle.attach(OutboxStore.class).claimStranded(before, LATER_THAN_ANY_RECORDED_TIME, limit).stream()
                .map(OutboxDispatchSource::row)
                .toList();
    }

    @Override
    public void start(Row row) {
        if (!row.mayBeRunning()) {
            // Never planned: a workflow already running for it has not planned yet, and will find every delivery.
            starter.start(OutboxDeliveryWorkflow.TYPE, row, "outbound", row.id(), row.plan());
            return;
        }
        // A running workflow is told to plan again: a replayed delivery joins it instead of waiting for the reconciler.
        starter.signalWithStart(OutboxDeliveryWorkflow.TYPE, row, "outbound", row.id(), "replan");
    }

    @Override
    public boolean restart(Row row) {
        // No replan signal: a running workflow already has every delivery the reconciler could find.
        return starter.start(OutboxDeliveryWorkflow.TYPE, row, "outbound", row.id());
    }

    private static Row row(OutboxStore.Claimed claimed) {
        return row(claimed, null, null);
    }

    /** {@code refused}: why the catalog refuses the row, null when it does not. */
    private Row claimedRow(OutboxStore.Claimed claimed, String refused, Handle handle) {
        String unstartable = claimed.payloadBytes() > MAX_PAYLOAD_BYTES
                ? "payload is larger than 2 MiB (" + claimed.payloadBytes() + " bytes), the most Relaybox delivers"
                : refused;
        DeliveryPlan plan =
                planner == null || unstartable != null || claimed.planned() ? null : planner.plan(handle, claimed.id());
        return row(claimed, unstartable, plan);
    }

    private static Row row(OutboxStore.Claimed claimed, String unstartable, DeliveryPlan plan) {
        String aggregate = claimed.aggregate().toString();
        return new Row(
                claimed.id(),
                OutboxDeliveryWorkflow.workflowId(claimed.id()),
                claimed.eventType(),
                aggregate,
                null,
                claimed.tenant(),
                "deliver " + claimed.eventType() + " for " + aggregate + " to its subscribers",
                "outbox event " + claimed.id() + " (the webhook-id receivers see)\n" + Row.traceLine(claimed.traceId())
                        + Row.storyLine(claimed.id()),
                unstartable,
                claimed.planned(),
                plan);
    }
}
