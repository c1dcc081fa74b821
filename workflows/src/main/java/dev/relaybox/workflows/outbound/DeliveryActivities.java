package dev.relaybox.workflows.outbound;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The database and HTTP side of an outbound delivery. Every method is idempotent: it may run again after
 * a worker crash, and guarded updates make the second run harmless.
 */
@ActivityInterface(namePrefix = "Delivery")
public interface DeliveryActivities {

    /**
     * Creates one {@code deliveries} row per enabled endpoint subscribed to the row's event type (rows
     * that already exist are kept) and returns those not yet finished.
     */
    @ActivityMethod
    DeliveryPlan plan(UUID outboxId);

    /**
     * Sends attempt number {@code attempt} of a delivery, records it in {@code delivery_attempts}, and
     * classifies the answer. Never throws for what the receiver did; only for Relaybox's own faults.
     */
    @ActivityMethod
    AttemptResult attempt(UUID deliveryId, int attempt);

    /**
     * {@link #attempt}, then reports it to the endpoint's controls ({@link EndpointControlActivities#settle}) and,
     * when it delivered the row's last delivery still to be attempted, marks the row finished ({@link #finish}) in
     * the transaction that records the delivery.
     */
    @ActivityMethod
    SettledAttempt send(UUID deliveryId, int attempt);

    /**
     * {@link #send} for the first attempts of an event's deliveries that nothing holds, their requests in flight at
     * once: one local activity and one read of their contexts for the whole fan-out instead of one per endpoint. The
     * answers in the order asked, each like {@link #send}'s (answered or handed over), or null for an attempt Relaybox
     * could not make (its database did not answer), which the delivery then makes on its own.
     */
    @ActivityMethod
    List<SettledAttempt> sendFirst(List<FirstAttempt> attempts);

    /** Marks the delivery RETRYING with its next attempt time, so operators see when it comes. */
    @ActivityMethod
    void scheduleRetry(UUID deliveryId, Instant nextAttemptAt, String lastError);

    /** Marks the delivery DEAD_LETTERED and records the dead letter, at most once while it is open. */
    @ActivityMethod
    void deadLetter(UUID deliveryId, String reason, String lastError);

    /** Sets {@code processed_at} on the outbox row once every one of its deliveries has finished. */
    @ActivityMethod
    void finish(UUID outboxId);
}
