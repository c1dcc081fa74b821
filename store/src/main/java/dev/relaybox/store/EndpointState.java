package dev.relaybox.store;

import java.time.Instant;
import java.util.UUID;

/**
 * One endpoint's {@code endpoint_state} row: its rate-limit schedule, its circuit breaker, the probing while the
 * circuit is open, and when it last answered and failed. The {@code with...} methods change one of those concerns.
 */
public record EndpointState(
        UUID endpointId,
        Instant rateTat,
        Circuit circuit,
        int consecutiveFailures,
        Instant failingSince,
        Instant openedAt,
        Instant nextProbeAt,
        UUID nextProber,
        UUID probeDelivery,
        Instant probeLeaseUntil,
        Instant lastSuccessAt,
        Instant lastFailureAt) {
    public boolean open() {
        return circuit.open();
    }

    /** {@code rateTat}: the rate limit's theoretical arrival time, the next slot of its schedule. */
    public EndpointState withRateTat(Instant tat) {
        return new EndpointState(
                endpointId,
                tat,
                circuit,
                consecutiveFailures,
                failingSince,
                openedAt,
                nextProbeAt,
                nextProber,
                probeDelivery,
                probeLeaseUntil,
                lastSuccessAt,
                lastFailureAt);
    }

    public EndpointState withBreaker(Circuit to, int failures, Instant since, Instant opened) {
        return new EndpointState(
                endpointId,
                rateTat,
                to,
                failures,
                since,
                opened,
                nextProbeAt,
                nextProber,
                probeDelivery,
                probeLeaseUntil,
                lastSuccessAt,
                lastFailureAt);
    }

    /** The next probe's time and who is to send it, and the probe under way with how long its lease holds. */
    public EndpointState withProbing(Instant nextAt, UUID prober, UUID delivery, Instant leaseUntil) {
        return new EndpointState(
                endpointId,
                rateTat,
                circuit,
                consecutiveFailures,
                failingSince,
                openedAt,
                nextAt,
                prober,
                delivery,
                leaseUntil,
                lastSuccessAt,
                lastFailureAt);
    }

    public EndpointState withLastOutcome(Instant success, Instant failure) {
        return new EndpointState(
                endpointId,
                rateTat,
                circuit,
                consecutiveFailures,
                failingSince,
                openedAt,
                nextProbeAt,
                nextProber,
                probeDelivery,
                probeLeaseUntil,
                success,
                failure);
    }
}
