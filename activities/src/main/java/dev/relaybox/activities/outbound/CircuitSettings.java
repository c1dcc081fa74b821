package dev.relaybox.activities.outbound;

import java.time.Duration;

/**
 * The circuit breaker and the waits around it.
 *
 * @param failureThreshold consecutive failed attempts (connection errors, timeouts, 408, 5xx) that open an
 *     endpoint's circuit; 0 turns the breaker off
 * @param probeInterval while open, one probe attempt per interval
 * @param disableAfter an endpoint failing continuously this long is disabled with a reason
 * @param recheck how long a waiting delivery sleeps before asking again when no signal wakes it
 * @param leaseTime how long an in-flight slot or probe is held past its start, so a killed worker cannot leak it
 * @param tenantMaxInFlight at most this many attempts in flight at once across all of one tenant's endpoints (each
 *     of which has its own bound too); 0 for no such bound
 */
public record CircuitSettings(
        int failureThreshold,
        Duration probeInterval,
        Duration disableAfter,
        Duration recheck,
        Duration leaseTime,
        int tenantMaxInFlight) {
    public static CircuitSettings defaults() {
        return new CircuitSettings(
                5, Duration.ofSeconds(30), Duration.ofDays(5), Duration.ofMinutes(1), Duration.ofMinutes(3), 0);
    }

    public CircuitSettings withFailureThreshold(int threshold) {
        return new CircuitSettings(threshold, probeInterval, disableAfter, recheck, leaseTime, tenantMaxInFlight);
    }

    public CircuitSettings withProbeInterval(Duration interval) {
        return new CircuitSettings(failureThreshold, interval, disableAfter, recheck, leaseTime, tenantMaxInFlight);
    }

    public CircuitSettings withDisableAfter(Duration after) {
        return new CircuitSettings(failureThreshold, probeInterval, after, recheck, leaseTime, tenantMaxInFlight);
    }

    public CircuitSettings withRecheck(Duration every) {
        return new CircuitSettings(failureThreshold, probeInterval, disableAfter, every, leaseTime, tenantMaxInFlight);
    }

    public CircuitSettings withTenantMaxInFlight(int bound) {
        return new CircuitSettings(failureThreshold, probeInterval, disableAfter, recheck, leaseTime, bound);
    }
}
