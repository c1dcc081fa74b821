package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tenant A's backlog of 2,000 events to a slow endpoint does not hold back tenant B's one event: the dispatcher takes
 * each tenant's oldest rows in turn (B's row is dispatched before most of A's, though written after them), and a tenant
 * endpoint holds at most {@code portal.maxInFlightPerEndpoint} of the worker's HTTP attempts.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class NoisyNeighbourTest {
    static final int BACKLOG = 2_000;
    static final int BOUND = 4;
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.jitter", "0"),
            ConfigOverride.config("portal.maxInFlightPerEndpoint", Integer.toString(BOUND)));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void oneTenantsBacklogToASlowEndpointDoesNotDelayAnothersEvent() {
        RECEIVER.answer(r -> r.path().equals("/slow")
                ? TestReceiver.Reply.of(200).after(Duration.ofSeconds(3))
                : TestReceiver.Reply.of(200));
        for (String tenant : List.of("noisy", "quiet")) {
            API.admin("POST", "/admin/tenants", Map.of("key", tenant, "name", tenant));
            API.admin(
                    "POST",
                    "/admin/endpoints",
                    Map.of(
                            "name",
                            "hooks",
                            "url",
                            RECEIVER.url(tenant.equals("noisy") ? "/slow" : "/quiet"),
                            "tenant",
                            tenant,
                            "maxInFlight",
                            1000));
        }
        API.jdbi().useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, tenant)
                SELECT 'order', 'noisy-' || g, 'order.created', jsonb_build_object('n', g), 'noisy'
                  FROM generate_series(1, ?) g""", BACKLOG));

        assertThat(API.producer(
                                "POST",
                                "/outbox",
                                Map.of(
                                        "eventType", "order.created",
                                        "aggregateType", "order",
                                        "aggregateId", "quiet-1",
                                        "payload", Map.of("n", 1),
                                        "tenant", "quiet"))
                        .status())
                .isEqualTo(202);
        // The quiet tenant's workflow still queues behind the backlog's workflow tasks, the more of them the faster the
        // noisy endpoint answers (at 1 s, over 110 s beside the rest of the suite; at 3 s, seconds). At BOUND attempts
        // of 3 s each, the backlog outlasts this wait.
        await().atMost(Duration.ofSeconds(240))
                .until(() -> RECEIVER.received("/quiet").size() == 1);

        int dispatchedLater = API.jdbi()
                .withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM outbox_events o
                         WHERE o.tenant = 'noisy'
                           AND (o.dispatched_at IS NULL OR o.dispatched_at > (
                                SELECT dispatched_at FROM outbox_events WHERE tenant = 'quiet'))""").mapTo(Integer.class).one());
        assertThat(dispatchedLater)
                .as("the quiet tenant's event, written after the noisy one's backlog, was not queued behind it")
                .isGreaterThan(BACKLOG / 2);
        assertThat(RECEIVER.received("/slow").size())
                .as("it went out while the noisy one's backlog was still there")
                .isLessThan(BACKLOG / 4);
        assertThat(RECEIVER.maxInFlight())
                .as("the noisy endpoint held at most its bound of attempts at once, however it asked")
                .isLessThanOrEqualTo(BOUND + 1);
        assertThat(API.adminGet("/admin/tenants/noisy/endpoints")
                        .get(0)
                        .path("controls")
                        .path("maxInFlight")
                        .asInt())
                .isEqualTo(BOUND);
    }
}
