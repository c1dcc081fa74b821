package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.WorkflowVisibility;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The deliveries of one outbox row as its workflow follows them, and what that shows: the status query, the
 * search attributes and the current details. Every change of a delivery's phase goes through {@link #show}, so
 * the Temporal UI never lags behind the workflow.
 */
final class DeliveryBoard {
    private final Map<UUID, TrackedDelivery> deliveries = new LinkedHashMap<>();
    private WorkflowVisibility visibility = new WorkflowVisibility();

    /**
     * From now on, search attributes change only at {@link #showWaiting} and {@link #publish}: while a delivery is in
     * its HTTP attempt the UI's current details follow it, and an attempt lasts at most its deadline.
     */
    void publishWhenWaiting() {
        visibility = WorkflowVisibility.publishedWhenWaiting();
    }

    void describe(DeliveryPlan plan) {
        visibility.describe("outbound", null, plan.eventType(), plan.aggregate());
    }

    /** Follows the delivery from its first attempt of this plan on. */
    TrackedDelivery track(DeliveryTarget target) {
        TrackedDelivery delivery = new TrackedDelivery(target);
        deliveries.put(target.deliveryId(), delivery);
        return delivery;
    }

    /** The endpoints of every delivery followed so far, then the status. */
    void showEndpoints() {
        visibility.endpoints(
                deliveries.values().stream().map(TrackedDelivery::endpointName).toList());
        refresh();
    }

    void show(TrackedDelivery delivery, DeliveryPhase phase, String details) {
        delivery.phase = phase;
        delivery.details = details;
        refresh();
    }

    /** {@link #show}, where the delivery starts to wait for a timer or a signal: what it waits for is searchable. */
    void showWaiting(TrackedDelivery delivery, DeliveryPhase phase, String details) {
        show(delivery, phase, details);
        publish();
    }

    /** Upserts what changed and was not shown yet. */
    void publish() {
        visibility.publish();
    }

    void refresh() {
        long attempts =
                deliveries.values().stream().mapToInt(d -> d.attempts).max().orElse(0);
        visibility.show(
                overallStatus(),
                attempts,
                deliveries.isEmpty()
                        ? "no enabled endpoint subscribes to this event"
                        : deliveries.values().stream()
                                .map(d -> d.endpointName() + ": " + d.details)
                                .collect(Collectors.joining("\n")));
    }

    OutboxProgress status(UUID outboxId) {
        return new OutboxProgress(
                outboxId,
                overallStatus(),
                deliveries.values().stream()
                        .map(d -> new OutboxProgress.DeliveryProgress(
                                d.id(), d.endpointName(), d.phase.label(), d.attempts, d.lastResult, d.nextAttemptAt))
                        .toList());
    }

    private String overallStatus() {
        return DeliveryPhase.overall(
                        deliveries.values().stream().map(d -> d.phase).toList())
                .label();
    }
}
