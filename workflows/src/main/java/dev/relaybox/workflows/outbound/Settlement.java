package dev.relaybox.workflows.outbound;

/**
 * The circuit breaker after an attempt.
 *
 * @param circuitOpen the endpoint's circuit is open: a failed delivery waits for it rather than spending its schedule
 * @param nextProbeAt ISO-8601 time of the next probe while open, else null
 */
public record Settlement(boolean circuitOpen, String nextProbeAt) {}
