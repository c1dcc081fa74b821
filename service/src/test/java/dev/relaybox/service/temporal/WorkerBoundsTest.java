package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The worker runs no more local activities at once than {@code temporal.maxConcurrentLocalActivities}, however many
 * workflow task slots it has: with the entities table locked, every inbox event's decision blocks inside its local
 * activity, so the sessions PostgreSQL shows waiting on that lock are the local activities running at that moment.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WorkerBoundsTest {
    static final int LOCAL_ACTIVITIES = 2;
    static final int EVENTS = 8;
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("temporal.maxConcurrentWorkflowTasks", "32"),
            ConfigOverride.config("temporal.maxConcurrentLocalActivities", Integer.toString(LOCAL_ACTIVITIES)));
    static final Api API = new Api(APP);

    @Test
    void aBacklogOfInboundEventsRunsNoMoreLocalActivitiesAtOnceThanConfigured() {
        Jdbi jdbi = API.jdbi();
        List<String> orders = new ArrayList<>();
        AtomicInteger mostAtOnce = new AtomicInteger();
        try (Handle lock = jdbi.open()) {
            lock.begin();
            lock.execute("LOCK TABLE entities IN SHARE ROW EXCLUSIVE MODE");
            for (int i = 0; i < EVENTS; i++) {
                String order = "bound-" + i + "-" + System.nanoTime();
                orders.add(order);
                receive(jdbi, "evt-" + order, order);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> waitingOnEntities(jdbi) >= LOCAL_ACTIVITIES);
            await("no more than " + LOCAL_ACTIVITIES + " local activities waiting on the lock at once")
                    .during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> {
                        int waiting = waitingOnEntities(jdbi);
                        mostAtOnce.accumulateAndGet(waiting, Math::max);
                        return waiting <= LOCAL_ACTIVITIES;
                    });
            lock.rollback();
        }
        assertThat(mostAtOnce.get()).isEqualTo(LOCAL_ACTIVITIES);

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(orders)
                        .allSatisfy(order -> assertThat(API.producer("GET", "/entities/order/" + order, null)
                                        .text("state"))
                                .isEqualTo("created")));
    }

    /** The application's sessions blocked on a lock of the entities table (the test's own lock holder is not). */
    private static int waitingOnEntities(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM pg_stat_activity
                         WHERE wait_event_type = 'Lock' AND query ILIKE '%entities%' AND pid <> pg_backend_pid()""").mapTo(int.class).one());
    }

    /** A webhook as the intake stores it (verified, RECEIVED): the dispatcher hears of it through the NOTIFY. */
    private static void receive(Jdbi jdbi, String eventId, String orderId) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type,
                                                   aggregate_id, payload, signature_verified)
                        VALUES ('shop', :eventId, 'order.created', 'order', :orderId, CAST(:payload AS jsonb), true)""")
                .bind("eventId", eventId)
                .bind("orderId", orderId)
                .bind("payload", "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + orderId + "\"}}")
                .execute());
    }
}
