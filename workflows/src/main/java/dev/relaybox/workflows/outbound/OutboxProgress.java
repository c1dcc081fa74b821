package dev.relaybox.workflows.outbound;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What the workflow is doing right now, per delivery: the answer to its {@code status()} query.
 *
 * @param status the {@link DeliveryPhase#label() label} of the phase that matters most across the deliveries, as
 *               the {@code RelayStatus} search attribute shows it
 */
public record OutboxProgress(UUID outboxId, String status, List<DeliveryProgress> deliveries) {
    /** @param status the {@link DeliveryPhase#label() label} of this delivery's phase */
    public record DeliveryProgress(
            UUID deliveryId, String endpoint, String status, int attempts, String lastResult, Instant nextAttemptAt) {}
}
