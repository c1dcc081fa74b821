package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.replay.RecordedHistories;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The delivery workflow held by its endpoint's controls, with the real activities: records the histories of a
 * delivery waiting for an open circuit and of one waiting for the earlier event of its aggregate.
 */
class EndpointControlsWorkflowTest {
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)), 0, Duration.ofMinutes(10));

    final TestReceiver receiver = new TestReceiver();
    OutboundHarness outbound;

    @AfterEach
    void stop() {
        outbound.close();
        receiver.close();
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordWaitForAnOpenCircuit() {
        outbound = new OutboundHarness(
                true,
                SCHEDULE,
                CircuitSettings.defaults().withFailureThreshold(2).withProbeInterval(Duration.ofSeconds(30)));
        outbound.endpoint("flaky", receiver.url("/flaky"), EndpointControls.defaults());
        AtomicInteger requests = new AtomicInteger();
        receiver.respond(body -> requests.incrementAndGet() <= 2 ? 503 : 200);
        UUID outboxId = outbound.enqueue("42", "{}");

        outbound.start(List.of(outboxId));
        outbound.awaitAll(List.of(outboxId));

        List<Instant> attempts = attemptTimes();
        assertThat(attempts).hasSize(3);
        // The probe, not the schedule's five minutes, decided when the third attempt came.
        assertThat(Duration.between(attempts.get(1), attempts.get(2))).isLessThan(Duration.ofMinutes(5));
        record(outboxId, "outbound-waited-for-open-circuit.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordHoldForTheEarlierEventOfAnOrderedAggregate() {
        outbound = new OutboundHarness(true, SCHEDULE, CircuitSettings.defaults());
        outbound.endpoint(
                "ordered", receiver.url("/ordered"), new EndpointControls(null, null, null, true, "envelope"));
        AtomicInteger firstEventTries = new AtomicInteger();
        receiver.respond(
                body -> body.path("data").path("n").asInt() == 1 && firstEventTries.incrementAndGet() == 1 ? 503 : 200);
        UUID first = outbound.enqueue("42", "{\"n\": 1}");
        UUID second = outbound.enqueue("42", "{\"n\": 2}");

        outbound.start(List.of(first));
        await().atMost(Duration.ofSeconds(20)).until(() -> firstEventTries.get() == 1);
        outbound.start(List.of(second));
        outbound.awaitAll(List.of(first, second));

        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(2);
        record(second, "outbound-held-for-earlier-event.json");
    }

    private List<Instant> attemptTimes() {
        return outbound.jdbi.withHandle(h -> h.createQuery("SELECT started_at FROM delivery_attempts ORDER BY attempt")
                .mapTo(Instant.class)
                .list());
    }

    private void record(UUID outboxId, String fileName) {
        RecordedHistories.save(outbound.env.getWorkflowClient(), OutboxDeliveryWorkflow.workflowId(outboxId), fileName);
    }
}
