package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.store.EndpointControls;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A receiver down for ten minutes (of Temporal's skipped clock) while many events are pending. With the breaker,
 * attempts during the outage stay near the number of probes; without it every event spends its schedule.
 * Either way every event is delivered once the receiver is back. {@code -Drelaybox.test.outageEvents=500}
 * runs the full drill (the default, 80, keeps the build quick and the two outcomes far apart).
 */
@Execution(ExecutionMode.CONCURRENT)
class CircuitBreakerTest {
    private static final Logger LOG = LoggerFactory.getLogger("relaybox.measurements");
    static final int EVENTS = Integer.getInteger("relaybox.test.outageEvents", 80);
    static final Duration OUTAGE = Duration.ofMinutes(10);
    // Long enough that nothing is dead-lettered during the outage, with or without the breaker.
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(1)),
            0,
            Duration.ofMinutes(10));
    static final CircuitSettings BREAKER = CircuitSettings.defaults().withProbeInterval(Duration.ofSeconds(30));

    final TestReceiver receiver = new TestReceiver();
    OutboundHarness outbound;

    @AfterEach
    void stop() {
        outbound.close();
        receiver.close();
    }

    @Test
    void openCircuitHoldsPendingDeliveriesToOneProbePerIntervalThenDeliversAll() {
        outbound = new OutboundHarness(true, SCHEDULE, BREAKER);
        Outage outage = run();

        LOG.info(
                "breaker on: {} events, {} attempts during a {} outage ({} probes at most), {} attempts in all",
                EVENTS,
                outage.failedAttempts,
                OUTAGE,
                OUTAGE.toSeconds() / 30,
                outage.allAttempts);
        assertThat(outage.delivered).isEqualTo(EVENTS);
        assertThat(outage.deadLetters).isZero();
        // The attempts that tripped the breaker, then one probe per 30 s of the outage (and a little slack).
        assertThat(outage.failedAttempts).isLessThanOrEqualTo(TRIP_EVENTS + (int) (OUTAGE.toSeconds() / 30) + 5);
        assertThat(outbound.count("SELECT count(*) FROM endpoint_state WHERE circuit = 'CLOSED'"))
                .isEqualTo(1);
    }

    @Test
    void withoutTheBreakerEveryPendingEventSpendsItsSchedule() {
        outbound = new OutboundHarness(true, SCHEDULE, BREAKER.withFailureThreshold(0));
        Outage outage = run();

        LOG.info(
                "breaker off: {} events, {} attempts during a {} outage, {} attempts in all",
                EVENTS,
                outage.failedAttempts,
                OUTAGE,
                outage.allAttempts);
        assertThat(outage.delivered).isEqualTo(EVENTS);
        assertThat(outage.failedAttempts).isGreaterThan(2 * EVENTS);
    }

    @Test
    void endpointFailingLongerThanDisableAfterIsDisabledWithAReasonAndItsEventsStayRecorded() {
        outbound = new OutboundHarness(true, SCHEDULE, BREAKER.withDisableAfter(Duration.ofMinutes(10)));
        UUID endpoint = outbound.endpoint("gone-quiet", receiver.url("/quiet"), EndpointControls.defaults());
        receiver.respond(body -> 503);
        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            events.add(outbound.enqueue("quiet-" + i, "{}"));
        }
        outbound.start(events);
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.requests() >= 6);

        outbound.env.sleep(Duration.ofMinutes(15));

        await().atMost(Duration.ofSeconds(60))
                .until(() -> outbound.count(
                                "SELECT count(*) FROM endpoints WHERE NOT enabled AND disabled_reason LIKE 'failing continuously since %'")
                        == 1);
        assertThat(outbound.circuit(endpoint)).isEqualTo("OPEN");
        // Not one of them was delivered, and not one is lost: each is still a delivery row (replayable once
        // dead-lettered, or delivered when the endpoint is enabled again).
        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status <> 'DELIVERED'"))
                .isEqualTo(6);
        assertThat(outbound.count("SELECT count(*) FROM delivery_attempts")).isLessThan(6 + 2 * 20);
    }

    static final int TRIP_EVENTS = 10;

    private record Outage(int delivered, int deadLetters, int failedAttempts, int allAttempts) {}

    /**
     * A few events trip the breaker against the failing receiver; then the rest are enqueued while it is
     * down, and all are awaited while Temporal's clock runs through the outage.
     */
    private Outage run() {
        UUID endpoint = outbound.endpoint("flaky", receiver.url("/flaky"), EndpointControls.defaults());
        long recoversAt = outbound.env.currentTimeMillis() + OUTAGE.toMillis();
        receiver.respond(body -> outbound.env.currentTimeMillis() < recoversAt ? 503 : 200);

        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < TRIP_EVENTS; i++) {
            events.add(outbound.enqueue("early-" + i, "{}"));
        }
        outbound.start(events);
        await().atMost(Duration.ofSeconds(60)).until(() -> receiver.requests() >= TRIP_EVENTS);
        List<UUID> pending = new ArrayList<>();
        for (int i = TRIP_EVENTS; i < EVENTS; i++) {
            pending.add(outbound.enqueue("pending-" + i, "{}"));
        }
        outbound.start(pending);
        events.addAll(pending);
        outbound.awaitAll(events);

        return new Outage(
                outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"),
                outbound.count("SELECT count(*) FROM dead_letters"),
                outbound.count("SELECT count(*) FROM delivery_attempts WHERE status_code = 503"),
                outbound.count("SELECT count(*) FROM delivery_attempts"));
    }
}
