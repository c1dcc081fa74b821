package dev.relaybox.activities.outbound.controls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.outbound.CircuitSettings;
import dev.relaybox.activities.outbound.controls.CircuitBreaker.CircuitChange;
import dev.relaybox.activities.outbound.controls.CircuitBreaker.OpenTurn;
import dev.relaybox.store.Circuit;
import dev.relaybox.store.EndpointState;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The breaker's decisions on an endpoint's state, without a database: each test one moment of one circuit. */
class CircuitBreakerDecisionsTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(30);
    static final Duration LEASE = Duration.ofMinutes(3);
    static final CircuitSettings SETTINGS =
            new CircuitSettings(3, PROBE_INTERVAL, Duration.ofHours(1), Duration.ofMinutes(1), LEASE, 0);
    static final UUID ENDPOINT = UUID.randomUUID();
    static final UUID ME = UUID.randomUUID();
    static final UUID OTHER = UUID.randomUUID();

    final CircuitBreaker breaker = new CircuitBreaker(SETTINGS);

    static EndpointState closed() {
        return new EndpointState(ENDPOINT, null, Circuit.CLOSED, 0, null, null, null, null, null, null, null, null);
    }

    /** Opened at T0 after three failures; the first probe is due one interval later. */
    static EndpointState openedAtT0() {
        return closed().withBreaker(Circuit.OPEN, 3, T0.minusSeconds(10), T0)
                .withProbing(T0.plus(PROBE_INTERVAL), null, null, null);
    }

    static AttemptResult failed(int status) {
        return new AttemptResult(Outcome.RETRYABLE, status, 0, "failed with " + status);
    }

    static AttemptResult delivered() {
        return new AttemptResult(Outcome.DELIVERED, 200, 0, "200");
    }

    @Test
    void theFirstToAskBeforeTheProbeIsDueBecomesTheNextProberAndWaitsUntilThen() {
        OpenTurn turn = breaker.whileOpen(openedAtT0(), ME, T0.plusSeconds(10));

        assertThat(turn.probes()).isFalse();
        assertThat(turn.changed())
                .hasValueSatisfying(s -> assertThat(s.nextProber()).isEqualTo(ME));
        assertThat(turn.waitFor()).isEqualTo(Duration.ofSeconds(20));
        assertThat(turn.spread()).isFalse();
    }

    @Test
    void theNextProberProbesAtExactlyTheDueInstantAndBooksTheProbeAfter() {
        EndpointState state = openedAtT0().withProbing(T0.plus(PROBE_INTERVAL), ME, null, null);
        Instant due = T0.plus(PROBE_INTERVAL);

        OpenTurn turn = breaker.whileOpen(state, ME, due);

        assertThat(turn.probes()).isTrue();
        EndpointState probing = turn.changed().orElseThrow();
        assertThat(probing.probeDelivery()).isEqualTo(ME);
        assertThat(probing.probeLeaseUntil()).isEqualTo(due.plus(LEASE));
        assertThat(probing.nextProbeAt()).isEqualTo(due.plus(PROBE_INTERVAL));
        assertThat(probing.nextProber()).isNull();
    }

    @Test
    void theNextProberOneNanosecondEarlyWaitsThatNanosecond() {
        EndpointState state = openedAtT0().withProbing(T0.plus(PROBE_INTERVAL), ME, null, null);

        OpenTurn turn = breaker.whileOpen(state, ME, T0.plus(PROBE_INTERVAL).minusNanos(1));

        assertThat(turn.probes()).isFalse();
        assertThat(turn.changed()).isEmpty();
        assertThat(turn.waitFor()).isEqualTo(Duration.ofNanos(1));
    }

    @Test
    void othersWaitLongAndSpreadWhileAnotherIsTheNextProber() {
        EndpointState state = openedAtT0().withProbing(T0.plus(PROBE_INTERVAL), OTHER, null, null);

        OpenTurn turn = breaker.whileOpen(state, ME, T0.plus(PROBE_INTERVAL));

        assertThat(turn.probes()).isFalse();
        assertThat(turn.changed()).isEmpty();
        assertThat(turn.waitFor()).isEqualTo(PROBE_INTERVAL.multipliedBy(10));
        assertThat(turn.spread()).isTrue();
    }

    @ParameterizedTest(name = "{0} s after the probe was due: another may take over {1}")
    @CsvSource({"0, false", "30, false", "31, true"})
    void anyoneProbesOnceTheNextProberStayedAwayForAWholeInterval(long secondsLate, boolean takesOver) {
        Instant due = T0.plus(PROBE_INTERVAL);
        EndpointState state = openedAtT0().withProbing(due, OTHER, null, null);

        OpenTurn turn = breaker.whileOpen(state, ME, due.plusSeconds(secondsLate));

        assertThat(turn.probes()).isEqualTo(takesOver);
    }

    @Test
    void nobodyElseProbesWhileAProbeHoldsItsLease() {
        Instant due = T0.plus(PROBE_INTERVAL);
        EndpointState state = openedAtT0().withProbing(due, null, OTHER, due.plus(LEASE));

        OpenTurn turn = breaker.whileOpen(state, ME, due.plusSeconds(1));

        assertThat(turn.probes()).isFalse();
        assertThat(turn.waitFor()).isEqualTo(PROBE_INTERVAL);
    }

    @Test
    void aProbeWhoseLeaseRanOutNoLongerBlocksTheNext() {
        Instant due = T0.plus(PROBE_INTERVAL);
        EndpointState state = openedAtT0().withProbing(due, null, OTHER, due);

        assertThat(breaker.whileOpen(state, ME, due).probes()).isTrue();
    }

    @ParameterizedTest(name = "failure {0} of threshold 3 opens the circuit: {1}")
    @CsvSource({"1, false", "2, false", "3, true"})
    void theCircuitOpensAtTheThresholdOfConsecutiveFailures(int failureNumber, boolean opens) {
        EndpointState state = closed().withBreaker(Circuit.CLOSED, failureNumber - 1, T0, null);

        CircuitChange settled = breaker.afterAttempt(state, ME, failed(503), true, T0.plusSeconds(1));

        assertThat(settled.opened()).isEqualTo(opens);
        assertThat(settled.state().consecutiveFailures()).isEqualTo(failureNumber);
        assertThat(settled.circuit().circuitOpen()).isEqualTo(opens);
    }

    @Test
    void openingSchedulesTheFirstProbeAndForgetsTheRateSchedule() {
        EndpointState state = closed().withBreaker(Circuit.CLOSED, 2, T0, null).withRateTat(T0.plusSeconds(60));
        Instant now = T0.plusSeconds(5);

        CircuitChange settled = breaker.afterAttempt(state, ME, failed(0), true, now);

        assertThat(settled.state().openedAt()).isEqualTo(now);
        assertThat(settled.state().rateTat()).isNull();
        assertThat(settled.circuit().nextProbeAt()).isEqualTo(now.plus(PROBE_INTERVAL));
        assertThat(settled.state().lastFailureAt()).isEqualTo(now);
        assertThat(settled.state().failingSince()).isEqualTo(T0);
    }

    @Test
    void anAnswerClosesTheCircuitAndClearsTheProbe() {
        EndpointState probing = openedAtT0().withProbing(T0.plus(PROBE_INTERVAL.multipliedBy(2)), null, ME, T0);
        Instant now = T0.plus(PROBE_INTERVAL);

        CircuitChange settled = breaker.afterAttempt(probing, ME, delivered(), true, now);

        assertThat(settled.closed()).isTrue();
        assertThat(settled.circuit().circuitOpen()).isFalse();
        EndpointState after = settled.state();
        assertThat(after.circuit()).isEqualTo(Circuit.CLOSED);
        assertThat(after.consecutiveFailures()).isZero();
        assertThat(after.failingSince()).isNull();
        assertThat(after.nextProbeAt()).isNull();
        assertThat(after.probeDelivery()).isNull();
        assertThat(after.lastSuccessAt()).isEqualTo(now);
    }

    @Test
    void aFailedProbeKeepsTheCircuitOpenAndFreesTheProbe() {
        Instant due = T0.plus(PROBE_INTERVAL);
        EndpointState probing = openedAtT0().withProbing(due.plus(PROBE_INTERVAL), null, ME, due.plus(LEASE));

        CircuitChange settled = breaker.afterAttempt(probing, ME, failed(500), true, due.plusSeconds(1));

        assertThat(settled.opened()).isFalse();
        assertThat(settled.circuit())
                .isEqualTo(new dev.relaybox.workflows.outbound.CircuitState(true, due.plus(PROBE_INTERVAL)));
        assertThat(settled.state().probeDelivery()).isNull();
        assertThat(settled.state().consecutiveFailures()).isEqualTo(4);
    }

    @ParameterizedTest(name = "status {0}: the circuit counts it neither as failure nor as answer")
    @CsvSource({"429"})
    void aRateLimitAnswerNeitherFailsNorHeals(int status) {
        EndpointState state = closed().withBreaker(Circuit.CLOSED, 2, T0, null);

        CircuitChange settled = breaker.afterAttempt(state, ME, failed(status), true, T0.plusSeconds(1));

        assertThat(settled.state().consecutiveFailures()).isEqualTo(2);
        assertThat(settled.state().lastFailureAt()).isNull();
    }

    @ParameterizedTest(name = "{0} {1}: failure {2}, answer {3}")
    @CsvSource({
        "RETRYABLE, 0, true, false",
        "RETRYABLE, 408, true, false",
        "RETRYABLE, 503, true, false",
        "RETRYABLE, 429, false, false",
        "RETRYABLE, 425, false, true",
        "PERMANENT, 404, false, true",
        "PERMANENT, 0, false, false",
        "DELIVERED, 200, false, true"
    })
    void attemptsAreFailuresOnlyWhenTheReceiverIsNotWorking(
            Outcome outcome, int status, boolean failure, boolean answer) {
        AttemptResult result = new AttemptResult(outcome, status, 0, "");

        assertThat(CircuitBreaker.isFailure(result)).isEqualTo(failure);
        assertThat(CircuitBreaker.answered(result)).isEqualTo(answer);
    }

    @ParameterizedTest(name = "failing for {0} min of 60, enabled {1}: disables {2}")
    @CsvSource({"59, true, false", "60, true, true", "61, true, true", "60, false, false"})
    void anEndpointFailingContinuouslyForDisableAfterIsDisabled(long minutes, boolean enabled, boolean disables) {
        EndpointState state = closed().withBreaker(Circuit.CLOSED, 1, T0, null);

        CircuitChange settled =
                breaker.afterAttempt(state, ME, failed(503), enabled, T0.plus(Duration.ofMinutes(minutes)));

        assertThat(settled.disables()).isEqualTo(disables);
        if (disables) {
            assertThat(settled.circuit().circuitOpen()).isFalse();
        }
    }
}
