package dev.relaybox.workflows.outbound;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;
import java.util.UUID;

/**
 * Per-endpoint controls around each attempt: the circuit breaker, FIFO per aggregate, {@code maxInFlight} and
 * the rate limit. Their state lives in the database, so every worker and instance enforces the same limits.
 * A delivery asks before each attempt and reports after it; waiting is never an attempt. {@code now} is the
 * workflow's clock (run as local activities, they have no scheduled time of their own in history).
 */
@ActivityInterface(namePrefix = "Controls")
public interface EndpointControlActivities {

    /**
     * May this delivery attempt now? Either "wait" (the circuit is open, an earlier event of the aggregate is
     * unfinished, no slot is free) with how long before asking again, or "go" — possibly after a wait for the
     * rate limit's reserved slot; a go holds an in-flight slot until {@link #settle}. Idempotent per delivery.
     */
    @ActivityMethod
    GateDecision admit(UUID deliveryId, Instant now);

    /**
     * Reports how an attempt went: releases its slot and feeds the circuit breaker (which may open, close,
     * or disable an endpoint failing for too long). Wakes the workflows that can go now. Returns the circuit
     * as the attempt left it.
     */
    @ActivityMethod
    CircuitState settle(UUID deliveryId, AttemptResult result, Instant now);

    /** The delivery finished (delivered or dead-lettered): frees what it held and wakes the next event of its aggregate. */
    @ActivityMethod
    void finished(UUID deliveryId);
}
