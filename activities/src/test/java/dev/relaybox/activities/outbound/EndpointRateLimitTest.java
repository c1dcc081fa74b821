package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.EndpointControls;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rateLimit}, {@code burst} and {@code maxInFlight} against a real receiver that counts what reaches it.
 * Temporal's clock is not skipped here: the receiver measures real seconds.
 */
class EndpointRateLimitTest {
    private static final Logger LOG = LoggerFactory.getLogger("relaybox.measurements");
    static final DeliverySchedule SCHEDULE =
            new DeliverySchedule(List.of(Duration.ofSeconds(1)), 0, Duration.ofSeconds(1));

    final TestReceiver receiver = new TestReceiver();
    /** Each test's: the one with a tenant's bound replaces it. */
    OutboundHarness outbound = new OutboundHarness(false, SCHEDULE, CircuitSettings.defaults());

    @AfterEach
    void stop() {
        outbound.close();
        receiver.close();
    }

    @Test
    void rateLimitAndBurstBoundRequestsPerSecondWithoutSpendingAttempts() {
        receiver.latency(Duration.ofMillis(50));
        outbound.endpoint("paced", receiver.url("/paced"), new EndpointControls(4.0, 2, null, false, "envelope"));

        List<UUID> events = enqueue(30);
        outbound.start(events);
        outbound.awaitAll(events);

        LOG.info(
                "rate limit 4/s burst 2: {} requests, max {} in any second, max {} in flight; arrivals (ms) {}",
                receiver.requests(),
                receiver.maxPerSecond(),
                receiver.maxInFlight(),
                receiver.arrivalOffsetsMillis());
        assertThat(receiver.requests()).isEqualTo(30);
        // Relaybox holds each request to rate + burst per second as it leaves. The receiver's clock adds its own
        // jitter (on a loaded machine a stalled accept thread hands several spaced requests over at once), so
        // allow one more second's worth; unlimited, the same 30 arrive within a second (see the last test).
        assertThat(receiver.maxPerSecond()).isLessThanOrEqualTo(4 + 2 + 4);
        // Waiting for the limit is not an attempt: one attempt per event, all delivered.
        assertThat(outbound.count("SELECT count(*) FROM delivery_attempts")).isEqualTo(30);
        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(30);
    }

    @Test
    void maxInFlightBoundsConcurrentRequests() {
        receiver.latency(Duration.ofMillis(300));
        outbound.endpoint("narrow", receiver.url("/narrow"), new EndpointControls(null, null, 3, false, "envelope"));

        List<UUID> events = enqueue(30);
        outbound.start(events);
        outbound.awaitAll(events);

        LOG.info(
                "maxInFlight 3: {} requests, max {} in flight, max {} in any second",
                receiver.requests(),
                receiver.maxInFlight(),
                receiver.maxPerSecond());
        assertThat(receiver.requests()).isEqualTo(30);
        assertThat(receiver.maxInFlight()).isLessThanOrEqualTo(3);
        assertThat(outbound.count("SELECT count(*) FROM delivery_attempts")).isEqualTo(30);
        assertThat(outbound.count("SELECT count(*) FROM endpoint_leases")).isZero();
    }

    @Test
    void aTenantsEndpointsTogetherHoldAtMostTheTenantsInFlightBound() {
        // Three endpoints of 3 each would hold 9 at once; the tenant's bound is 4. A delivery it holds back is woken
        // when a slot of its own endpoint frees (the recheck, an hour here, would outlast the test's limit).
        outbound.close();
        outbound = new OutboundHarness(
                false,
                SCHEDULE,
                CircuitSettings.defaults().withRecheck(Duration.ofHours(1)).withTenantMaxInFlight(4));
        receiver.latency(Duration.ofMillis(300));
        outbound.jdbi.useHandle(h -> h.execute("INSERT INTO tenants (key, name) VALUES ('acme', 'Acme')"));
        for (String name : List.of("a", "b", "c")) {
            outbound.endpoint(
                    "acme", name, receiver.url("/" + name), new EndpointControls(null, null, 3, false, "envelope"));
        }
        List<UUID> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(outbound.enqueue("acme", "agg-" + i, "{\"n\": " + i + "}"));
        }
        outbound.start(events);
        outbound.awaitAll(events, Duration.ofMinutes(2));

        LOG.info(
                "tenant bound 4 over 3 endpoints of 3: {} requests, max {} in flight",
                receiver.requests(),
                receiver.maxInFlight());
        assertThat(receiver.requests()).isEqualTo(30);
        assertThat(receiver.maxInFlight()).isLessThanOrEqualTo(4);
        assertThat(outbound.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(30);
        assertThat(outbound.count("SELECT count(*) FROM endpoint_leases")).isZero();
    }

    @Test
    void aDeliveryHeldByItsTenantsBoundGoesWhenAnotherOfTheTenantsEndpointsFreesASlot() {
        // One slot for the tenant, two endpoints with room of their own: whichever delivery goes first, the other
        // waits for the tenant's slot while its own endpoint has nothing in flight to free one.
        outbound.close();
        outbound = new OutboundHarness(
                false,
                SCHEDULE,
                CircuitSettings.defaults().withRecheck(Duration.ofHours(1)).withTenantMaxInFlight(1));
        receiver.latency(Duration.ofMillis(500));
        outbound.jdbi.useHandle(h -> h.execute("INSERT INTO tenants (key, name) VALUES ('acme', 'Acme')"));
        for (String name : List.of("a", "b")) {
            outbound.endpoint(
                    "acme", name, receiver.url("/" + name), new EndpointControls(null, null, 5, false, "envelope"));
        }
        List<UUID> events = List.of(outbound.enqueue("acme", "agg", "{}"));
        outbound.start(events);
        outbound.awaitAll(events, Duration.ofSeconds(30));

        assertThat(receiver.requests()).isEqualTo(2);
        assertThat(receiver.maxInFlight()).isEqualTo(1);
        assertThat(outbound.count("SELECT count(*) FROM endpoint_leases")).isZero();
    }

    @Test
    void withoutLimitsTheSameLoadGoesFasterAndWider() {
        // The control for the two tests above: the receiver would see more if nothing held Relaybox back.
        receiver.latency(Duration.ofMillis(300));
        outbound.endpoint("open", receiver.url("/open"), EndpointControls.defaults());

        List<UUID> events = enqueue(60);
        outbound.start(events);
        outbound.awaitAll(events);

        LOG.info(
                "no limits: {} requests, max {} in flight, max {} in any second",
                receiver.requests(),
                receiver.maxInFlight(),
                receiver.maxPerSecond());
        assertThat(receiver.maxInFlight()).isGreaterThan(3);
        assertThat(receiver.maxPerSecond()).isGreaterThan(6);
    }

    private List<UUID> enqueue(int count) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(outbound.enqueue("agg-" + i, "{\"n\": " + i + "}"));
        }
        return ids;
    }
}
