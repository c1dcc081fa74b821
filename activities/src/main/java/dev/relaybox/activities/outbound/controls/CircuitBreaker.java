package dev.relaybox.activities.outbound.controls;

import dev.relaybox.activities.outbound.CircuitSettings;
import dev.relaybox.store.Circuit;
import dev.relaybox.store.EndpointState;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import dev.relaybox.workflows.outbound.CircuitState;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * An endpoint's circuit breaker as decisions on its {@link EndpointState}: who probes while the circuit is open,
 * and what an attempt's outcome does to the circuit. The caller holds the state's row lock and saves what it is
 * given.
 */
public final class CircuitBreaker {
    private final CircuitSettings settings;

    public CircuitBreaker(CircuitSettings settings) {
        this.settings = settings;
    }

    /**
     * What a delivery asking while the circuit is open does.
     *
     * @param probes it sends now, as the probe
     * @param changed the state to save, when the asking changed it
     * @param waitFor how long it waits otherwise
     * @param spread the wait is long and shared by many: spread it so they do not all ask again at once
     * @param nextProbeAt when the next probe is due, to tell the waiting delivery
     */
    public record OpenTurn(
            boolean probes, Optional<EndpointState> changed, Duration waitFor, boolean spread, Instant nextProbeAt) {}

    /**
     * While the circuit is open exactly one delivery probes per interval: the one named {@code next_prober} (the
     * first to ask), or anyone once that one failed to show up for a whole interval. The rest sleep long and are
     * woken by the signal sent when the circuit closes.
     */
    public OpenTurn whileOpen(EndpointState state, UUID me, Instant now) {
        Instant nextProbeAt = state.nextProbeAt() == null ? now : state.nextProbeAt();
        boolean probeInFlight = state.probeDelivery() != null
                && !state.probeDelivery().equals(me)
                && state.probeLeaseUntil() != null
                && state.probeLeaseUntil().isAfter(now);
        boolean proberAbsent = state.nextProber() != null && now.isAfter(nextProbeAt.plus(settings.probeInterval()));
        boolean mine = state.nextProber() == null || state.nextProber().equals(me) || proberAbsent;
        if (mine && !probeInFlight && !now.isBefore(nextProbeAt)) {
            EndpointState probing =
                    state.withProbing(now.plus(settings.probeInterval()), null, me, now.plus(settings.leaseTime()));
            return new OpenTurn(true, Optional.of(probing), Duration.ZERO, false, nextProbeAt);
        }
        Optional<EndpointState> changed = mine && !me.equals(state.nextProber())
                ? Optional.of(
                        state.withProbing(state.nextProbeAt(), me, state.probeDelivery(), state.probeLeaseUntil()))
                : Optional.empty();
        if (!mine) {
            return new OpenTurn(false, changed, settings.probeInterval().multipliedBy(10), true, nextProbeAt);
        }
        Duration wait = probeInFlight ? settings.probeInterval() : Duration.between(now, nextProbeAt);
        return new OpenTurn(false, changed, wait, false, nextProbeAt);
    }

    /**
     * What an attempt's outcome did.
     *
     * @param state the state to save
     * @param opened the circuit opened with this failure
     * @param closed the circuit closed with this answer
     * @param disables the endpoint has failed continuously for {@code disableAfter} and is to be disabled
     */
    public record CircuitChange(EndpointState state, boolean opened, boolean closed, boolean disables) {
        /** The circuit as the delivery's workflow sees it: a disabled endpoint's deliveries do not wait for it. */
        public CircuitState circuit() {
            boolean open = state.open() && !disables;
            return new CircuitState(open, open ? state.nextProbeAt() : null);
        }
    }

    /** The state after {@code deliveryId}'s attempt ended in {@code result} at {@code now}. */
    public CircuitChange afterAttempt(
            EndpointState s, UUID deliveryId, AttemptResult result, boolean enabled, Instant now) {
        boolean failure = isFailure(result);
        boolean probe = deliveryId.equals(s.probeDelivery());
        Circuit circuit = s.circuit();
        int failures = s.consecutiveFailures();
        Instant failingSince = s.failingSince();
        Instant openedAt = s.openedAt();
        Instant nextProbeAt = s.nextProbeAt();
        UUID nextProber = s.nextProber();
        Instant rateTat = s.rateTat();
        boolean opened = false;
        boolean closed = false;
        boolean disables = false;
        if (answered(result)) {
            failures = 0;
            failingSince = null;
            if (s.open()) {
                closed = true;
                circuit = circuit.afterAnswer();
                openedAt = null;
                nextProbeAt = null;
                nextProber = null;
            }
        } else if (failure) {
            failures++;
            failingSince = failingSince == null ? now : failingSince;
            circuit = circuit.afterFailure(failures, settings.failureThreshold());
            if (circuit.open() && !s.open()) {
                opened = true;
                openedAt = now;
                nextProbeAt = now.plus(settings.probeInterval());
                nextProber = null;
                // Slots reserved before the outage must not delay the first deliveries after it.
                rateTat = null;
            }
            disables = enabled && !now.isBefore(failingSince.plus(settings.disableAfter()));
        }
        EndpointState next = s.withRateTat(rateTat)
                .withBreaker(circuit, failures, failingSince, openedAt)
                .withProbing(
                        nextProbeAt, nextProber, probe ? null : s.probeDelivery(), probe ? null : s.probeLeaseUntil())
                .withLastOutcome(
                        result.outcome() == Outcome.DELIVERED ? now : s.lastSuccessAt(),
                        failure ? now : s.lastFailureAt());
        return new CircuitChange(next, opened, closed, disables);
    }

    /** The receiver answered (and not with a failure or a 429): the circuit forgets its failures. */
    public static boolean answered(AttemptResult result) {
        return result.outcome() == Outcome.DELIVERED
                || !isFailure(result) && result.statusCode() != 0 && result.statusCode() != 429;
    }

    /** Connection errors, timeouts, 408 and 5xx: the receiver is not working. Other answers show it is. */
    public static boolean isFailure(AttemptResult result) {
        if (result.outcome() != Outcome.RETRYABLE) {
            return false;
        }
        int status = result.statusCode();
        return status == 0 || status == 408 || status >= 500;
    }
}
