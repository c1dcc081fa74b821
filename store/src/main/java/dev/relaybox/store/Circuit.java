package dev.relaybox.store;

/**
 * An endpoint's circuit breaker ({@code endpoint_state.circuit}). Closed: deliveries go as scheduled. Open: the
 * endpoint failed {@code failureThreshold} times in a row, so one delivery at a time probes it and the rest wait.
 * An answer closes it again; so does an operator re-enabling the endpoint.
 */
public enum Circuit {
    CLOSED,
    OPEN;

    /** The receiver answered (any status but a failure): an open circuit closes. */
    public Circuit afterAnswer() {
        return CLOSED;
    }

    /** The receiver failed for the {@code consecutiveFailures}th time in a row; 0 as threshold never opens. */
    public Circuit afterFailure(int consecutiveFailures, int threshold) {
        return this == CLOSED && threshold > 0 && consecutiveFailures >= threshold ? OPEN : this;
    }

    public boolean open() {
        return this == OPEN;
    }
}
