package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FIFO per aggregate on an {@code ordered} endpoint, against a receiver that fails some first and second tries
 * at random and checks every event of an aggregate arrives only after the previous one was accepted. The
 * workflows start in shuffled order, so a later event is often planned before an earlier one. Default 8
 * aggregates x 6 events; {@code -Drelaybox.test.fifoAggregates=50 -Drelaybox.test.fifoEvents=20} runs the
 * full drill's 50 x 20.
 */
@Execution(ExecutionMode.CONCURRENT)
class OrderedDeliveryTest {
    private static final Logger LOG = LoggerFactory.getLogger("relaybox.measurements");
    static final int AGGREGATES = Integer.getInteger("relaybox.test.fifoAggregates", 8);
    static final int EVENTS = Integer.getInteger("relaybox.test.fifoEvents", 6);
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)), 0.1, Duration.ofMinutes(10));

    final TestReceiver receiver = new TestReceiver();
    final OutboundHarness outbound = new OutboundHarness(true, SCHEDULE, CircuitSettings.defaults());

    /** The last event number accepted per aggregate, and how often each event was tried. */
    final Map<String, Integer> accepted = new ConcurrentHashMap<>();

    final Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
    final AtomicInteger violations = new AtomicInteger();
    final AtomicInteger injectedFailures = new AtomicInteger();

    @AfterEach
    void stop() {
        outbound.close();
        receiver.close();
    }

    @Test
    void eachAggregatesEventsArriveInOutboxOrderDespiteFailuresAndRetries() {
        receiver.respond(this::checkOrder);
        outbound.endpoint(
                "ordered", receiver.url("/ordered"), new EndpointControls(null, null, null, true, "envelope"));
        List<UUID> events = enqueueInterleaved();
        List<UUID> startOrder = new ArrayList<>(events);
        Collections.shuffle(startOrder, new Random(7));

        outbound.start(startOrder);
        outbound.awaitAll(startOrder);

        LOG.info(
                "ordered: {} aggregates x {} events, {} requests, {} injected failures, {} order violations",
                AGGREGATES,
                EVENTS,
                receiver.requests(),
                injectedFailures.get(),
                violations.get());
        assertThat(violations.get()).isZero();
        assertThat(injectedFailures.get()).isPositive();
        assertThat(accepted)
                .hasSize(AGGREGATES)
                .allSatisfy((aggregate, last) -> assertThat(last).isEqualTo(EVENTS));
        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(AGGREGATES * EVENTS);
    }

    @Test
    void anUnorderedEndpointDoesNotWaitForEarlierEvents() {
        // The control: the same receiver sees events out of order when the endpoint is not ordered.
        receiver.respond(this::checkOrder);
        outbound.endpoint("unordered", receiver.url("/unordered"), EndpointControls.defaults());
        List<UUID> events = enqueueInterleaved();
        List<UUID> startOrder = new ArrayList<>(events);
        Collections.shuffle(startOrder, new Random(7));

        outbound.start(startOrder);
        outbound.awaitAll(startOrder);

        assertThat(violations.get()).isPositive();
    }

    /** Event n of every aggregate, then n + 1 of every aggregate: outbox order interleaves the aggregates. */
    private List<UUID> enqueueInterleaved() {
        List<UUID> ids = new ArrayList<>();
        for (int n = 1; n <= EVENTS; n++) {
            for (int a = 0; a < AGGREGATES; a++) {
                ids.add(outbound.enqueue("agg-" + a, "{\"aggregate\": \"agg-" + a + "\", \"n\": " + n + "}"));
            }
        }
        return ids;
    }

    /** Fails about a third of first and second tries; counts an event that arrives before its predecessor was accepted. */
    private int checkOrder(JsonNode envelope) {
        JsonNode data = envelope.path("data");
        String aggregate = data.path("aggregate").asText();
        int n = data.path("n").asInt();
        int attempt = tries.computeIfAbsent(aggregate + "/" + n, k -> new AtomicInteger())
                .incrementAndGet();
        synchronized (accepted) {
            int last = accepted.getOrDefault(aggregate, 0);
            if (n > last + 1) {
                violations.incrementAndGet();
            }
            boolean fail = attempt <= 2 && new Random(aggregate.hashCode() * 31L + n * 7L + attempt).nextInt(3) == 0;
            if (fail) {
                injectedFailures.incrementAndGet();
                return 503;
            }
            accepted.merge(aggregate, n, Math::max);
            return 200;
        }
    }
}
