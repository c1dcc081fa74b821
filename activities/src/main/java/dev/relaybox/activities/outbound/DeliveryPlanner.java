package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.RedactedUrl;
import dev.relaybox.store.DeliveryAttemptStore;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.DeliveryTarget;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Plans an outbox row's delivery: creates its deliveries on the first plan (one per subscribed endpoint whose filter
 * matches) and lists those not yet finished, with the schedule in force. The delivery workflow plans in a local
 * activity; the dispatcher of a process that also runs the worker plans in the transaction that claims the row and
 * starts the workflow with the plan, so a first delivery spends no transaction and no workflow step on it.
 */
public final class DeliveryPlanner {
    private final DeliverySchedule schedule;

    public DeliveryPlanner(DeliverySchedule schedule) {
        this.schedule = schedule;
    }

    /** Call inside a transaction: creating the deliveries and listing them must see one set of endpoints. */
    public DeliveryPlan plan(Handle handle, UUID outboxId) {
        OutboxStore.Event event = handle.attach(OutboxStore.class)
                .event(outboxId)
                .orElseThrow(() -> ApplicationFailure.newNonRetryableFailure(
                        "outbox row " + outboxId + " does not exist", "OutboxRowMissing"));
        DeliveryAttemptStore deliveries = handle.attach(DeliveryAttemptStore.class);
        subscribe(deliveries, outboxId);
        var targets = deliveries.unfinished(outboxId).stream()
                .map(t -> new DeliveryTarget(
                        t.deliveryId(),
                        t.endpointName(),
                        // Recorded in the history, which the Temporal UI shows: never a path, query or userinfo.
                        // Each attempt reads the whole URL from the store.
                        RedactedUrl.of(t.url()),
                        t.attempts(),
                        t.nextAttemptAt(),
                        t.goesAtOnce()))
                .toList();
        return new DeliveryPlan(
                event.eventType(), event.aggregate().toString(), targets, schedule, DeliveryPlan.CURRENT);
    }

    /**
     * Subscribes the row to the endpoints enabled now whose payload filter its payload matches, once; call it in the
     * transaction that plans the row.
     */
    public static int subscribe(DeliveryAttemptStore deliveries, UUID outboxId) {
        List<DeliveryAttemptStore.StoredFilter> filters = deliveries.payloadFilters(outboxId);
        UUID[] unmatched = new UUID[0];
        if (!filters.isEmpty()) {
            JsonNode data = PayloadFilterSyntax.data(deliveries.payloadText(outboxId));
            unmatched = filters.stream()
                    .filter(f ->
                            !PayloadFilterSyntax.readStored(f.payloadFilter()).matches(data))
                    .map(DeliveryAttemptStore.StoredFilter::endpointId)
                    .toArray(UUID[]::new);
        }
        return deliveries.createDeliveries(outboxId, DeliveryStatus.PENDING, DeliveryStatus.PAUSED, unmatched);
    }
}
