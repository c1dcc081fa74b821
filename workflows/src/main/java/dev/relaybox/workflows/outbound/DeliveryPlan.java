package dev.relaybox.workflows.outbound;

import java.util.List;

/**
 * What an outbox row needs delivered: the deliveries not yet finished, and the schedule in force when the
 * plan was made (recorded in history, so a config change never alters a running workflow's replay).
 */
public record DeliveryPlan(
        String eventType, String aggregate, List<DeliveryTarget> targets, DeliverySchedule schedule) {
    public DeliveryPlan {
        targets = List.copyOf(targets);
    }
}
