package dev.relaybox.workflows.outbound;

import java.time.Duration;

/**
 * An HTTP attempt as the endpoint's controls took it.
 *
 * @param circuit the endpoint's circuit as the attempt left it; null when the attempt was not reported to the controls
 * @param outboxFinished the attempt delivered the row's last delivery still to be attempted, and finished the row
 * @param handedOver a first attempt whose receiver had not answered when its workflow task had to go on: the request
 *     is still in flight in the worker that made it; null otherwise, and then {@code result} is the answer
 */
public record SettledAttempt(AttemptResult result, CircuitState circuit, boolean outboxFinished, HandOver handedOver) {
    public SettledAttempt(AttemptResult result, CircuitState circuit, boolean outboxFinished) {
        this(result, circuit, outboxFinished, null);
    }

    /** An attempt the controls have not heard of yet: the workflow reports it. */
    static SettledAttempt unreported(AttemptResult result) {
        return new SettledAttempt(result, null, false);
    }

    public static SettledAttempt handedOver(HandOver handOver) {
        return new SettledAttempt(null, null, false, handOver);
    }

    /**
     * Where a handed-over request is in flight: {@code send} on {@code taskQueue} (that worker's own) waits for its
     * answer. That worker polls its queue within {@code pickedUpWithin} (the request's deadline and its database
     * writes), or it is gone.
     */
    public record HandOver(String taskQueue, Duration pickedUpWithin) {}

    boolean reported() {
        return circuit != null;
    }
}
