package dev.relaybox.workflows.outbound;

import java.time.Instant;

/**
 * The endpoint's circuit breaker after an attempt was reported.
 *
 * @param circuitOpen the endpoint's circuit is open: a failed delivery waits for it rather than spending its schedule
 * @param nextProbeAt when the next probe may go while the circuit is open, else null
 */
public record CircuitState(boolean circuitOpen, Instant nextProbeAt) {
    public static CircuitState closed() {
        return new CircuitState(false, null);
    }
}
