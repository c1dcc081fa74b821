package dev.relaybox.workflows.outbound;

import java.time.Instant;
import java.util.UUID;

/** One delivery as this run of the workflow follows it, for its status query and the Temporal UI. */
final class TrackedDelivery {
    final DeliveryTarget target;
    DeliveryPhase phase = DeliveryPhase.PENDING;
    String details = "waiting for the first attempt";
    int attempts;
    String lastResult;
    Instant nextAttemptAt;
    /** Learned from the endpoint's controls at the first decision. */
    UUID endpointId;

    boolean ordered;

    TrackedDelivery(DeliveryTarget target) {
        this.target = target;
        this.attempts = target.attemptsSoFar();
    }

    UUID id() {
        return target.deliveryId();
    }

    String endpointName() {
        return target.endpointName();
    }
}
