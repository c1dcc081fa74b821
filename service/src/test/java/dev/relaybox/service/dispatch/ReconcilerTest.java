package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.RelayboxTestEngine;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconciler against a real PostgreSQL and an in-process Temporal, with outbound deliveries backing off (their
 * receiver fails) and inbound events deferred: a pass touches none of them while their engine has them, and
 * re-drives every one, each when the schedule in its row falls due, after the engine lost them all.
 */
class ReconcilerTest {
    static final String QUEUE = "reconciler-test";
    static final int OUTBOUND = 20;
    static final int DEFERRED = 10;
    /** Attempt 2 comes an hour after attempt 1; a deferred event rechecks hourly: nothing falls due in the test. */
    static final Duration BACKOFF = Duration.ofHours(1);

    /** How long an inbound event may stay deferred; the engine started next uses it. */
    Duration maxDeferral = Duration.ofHours(24);

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;
    Dispatcher dispatcher;
    /** Every call the reconciler made to (re)start a row's workflow, whether or not it was running. */
    final AtomicInteger restartCalls = new AtomicInteger();

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        receiver = new TestReceiver();
        receiver.script("/hooks", TestReceiver.Reply.of(503));
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.insert("receiver", receiver.url("/hooks"), WebhookSigner.newSecret(), List.of("*")));
        startEngine();
    }

    /** A Temporal with nothing in it, as after the engine lost its state, and a dispatcher using it. */
    private void startEngine() {
        env = RelayboxTestEngine.start(jdbi, QUEUE, BACKOFF, maxDeferral);
        WorkflowStarter starter = new WorkflowStarter(env.getWorkflowClient(), QUEUE);
        dispatcher = new Dispatcher(
                jdbi,
                List.of(
                        new WatchedSource(new OutboxDispatchSource(starter), row -> restartCalls.incrementAndGet()),
                        new WatchedSource(new InboxDispatchSource(starter), row -> restartCalls.incrementAndGet())),
                new DispatcherFactory(),
                DeadLetters.loggingOnly());
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void passesLeaveHealthyInFlightWorkflowsAlone() {
        List<UUID> outboxIds = putInFlight();

        int now = reconcileTouching(Instant.now());
        int afterTheGrace = reconcileTouching(Instant.now().plus(Duration.ofMinutes(10)));

        assertThat(now).as("rows touched by a pass now").isZero();
        assertThat(afterTheGrace).as("rows touched by a pass ten minutes on").isZero();
        // Overdue while still running (say, a worker too busy to fire its timer): looked at, never started twice.
        int restarted = dispatcher.reconcile(Instant.now().plus(BACKOFF).plus(Duration.ofMinutes(10)));
        assertThat(restarted).as("workflows started afresh").isZero();
        assertThat(restartCalls.get()).isEqualTo(OUTBOUND + DEFERRED);
        assertThat(receiver.received("/hooks")).hasSize(outboxIds.size());
    }

    @Test
    void afterTheEngineLostEverythingEachRowIsReDrivenWhenItFallsDueAndKeepsItsSchedule() {
        List<UUID> outboxIds = putInFlight();
        Map<UUID, Instant> recordedNext = nextAttempts();
        env.close();
        startEngine();
        receiver.script("/hooks", TestReceiver.Reply.of(200));

        // Nothing is due yet: the rows wait, as their workflows would have.
        assertThat(dispatcher.reconcile(Instant.now()))
                .as("re-driven before anything fell due")
                .isZero();

        // The events the deferred ones wait for arrive; their release signals find no workflow to wake, but the
        // release is recorded in the rows, so the next pass past the grace re-drives exactly those.
        for (int i = 0; i < DEFERRED; i++) {
            receive("created-" + i, "order.created", "order-" + i);
        }
        dispatcher.dispatchAll();
        await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM entities") == DEFERRED);
        assertThat(dispatcher.reconcile(Instant.now().plus(Duration.ofMinutes(1))))
                .isEqualTo(DEFERRED);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> count("SELECT count(*) FROM entities WHERE state = 'paid'") == DEFERRED);

        // A pass once the deliveries' next attempts are overdue re-drives every one of them.
        assertThat(dispatcher.reconcile(Instant.now().plus(BACKOFF).plus(Duration.ofMinutes(10))))
                .isEqualTo(OUTBOUND);
        env.sleep(BACKOFF.plus(Duration.ofMinutes(1)));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'") == OUTBOUND);

        assertThat(receiver.received("/hooks")).hasSize(2 * OUTBOUND);
        for (UUID outboxId : outboxIds) {
            List<Attempt> attempts = jdbi.withHandle(h -> h.createQuery("""
                            SELECT d.id, a.attempt, a.started_at
                              FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                             WHERE d.outbox_id = :id ORDER BY a.attempt""")
                    .bind("id", outboxId)
                    .map((rs, ctx) -> new Attempt(
                            rs.getObject("id", UUID.class),
                            rs.getInt("attempt"),
                            rs.getTimestamp("started_at").toInstant()))
                    .list());
            assertThat(attempts).extracting(Attempt::number).containsExactly(1, 2);
            assertThat(attempts.get(1).startedAt())
                    .as("attempt 2 of %s not before its recorded time", outboxId)
                    .isAfterOrEqualTo(recordedNext.get(attempts.get(1).deliveryId()));
        }
        assertThat(count("SELECT count(*) FROM dead_letters")).isZero();
    }

    @Test
    void afterTheEngineLostADeferredEventItIsDeadLetteredAtItsDeadlineNotARecheckLater() {
        // Deferred for at most two minutes, rechecked hourly: the deadline comes long before the recheck.
        maxDeferral = Duration.ofMinutes(2);
        env.close();
        startEngine();
        receive("paid-never", "order.paid", "order-never");
        dispatcher.dispatchAll();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> count(
                                "SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED' AND deferred_since IS NOT NULL")
                        == 1);
        Instant deadline = jdbi.withHandle(h -> h.createQuery("SELECT deferred_since FROM webhook_inbox")
                        .mapTo(Instant.class)
                        .one())
                .plus(maxDeferral);
        env.close();
        startEngine();

        assertThat(dispatcher.reconcile(deadline.minusSeconds(1)))
                .as("re-driven before the deadline")
                .isZero();
        // The pass whose grace ends at the deadline re-drives it, not one an hour on, at the recheck.
        assertThat(dispatcher.reconcile(deadline.plusSeconds(1)))
                .as("re-driven once the deadline passed")
                .isEqualTo(1);
        env.sleep(maxDeferral.plus(Duration.ofMinutes(1)));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> count("SELECT count(*) FROM webhook_inbox WHERE status = 'QUARANTINED'") == 1);
        List<String> reasons = jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .list());
        assertThat(reasons).singleElement().asString().contains("still deferred after 2m");
    }

    record Attempt(UUID deliveryId, int number, Instant startedAt) {}

    /** Deliveries that failed attempt 1 and wait an hour for attempt 2, and inbound events deferred. */
    private List<UUID> putInFlight() {
        List<UUID> outboxIds = new ArrayList<>();
        for (int i = 0; i < OUTBOUND; i++) {
            int n = i;
            outboxIds.add(jdbi.inTransaction(
                    h -> Outbox.enqueue(h, new OutboxEvent("order.updated", "order", "out-" + n, "{}"))));
        }
        for (int i = 0; i < DEFERRED; i++) {
            receive("paid-" + i, "order.paid", "order-" + i);
        }
        dispatcher.dispatchAll();
        await().atMost(Duration.ofSeconds(90))
                .until(() -> count(
                                        "SELECT count(*) FROM deliveries WHERE status = 'RETRYING' AND next_attempt_at IS NOT NULL")
                                == OUTBOUND
                        && count("SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED'") == DEFERRED);
        restartCalls.set(0);
        return outboxIds;
    }

    /** Runs a pass as of {@code before}; returns how many rows it touched (started, or found running). */
    private int reconcileTouching(Instant before) {
        int callsBefore = restartCalls.get();
        dispatcher.reconcile(before);
        return restartCalls.get() - callsBefore;
    }

    private Map<UUID, Instant> nextAttempts() {
        Map<UUID, Instant> next = new LinkedHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT id, next_attempt_at FROM deliveries")
                .map((rs, ctx) -> next.put(
                        rs.getObject("id", UUID.class),
                        rs.getTimestamp("next_attempt_at").toInstant()))
                .list());
        return next;
    }

    private void receive(String eventId, String eventType, String orderId) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type,
                                                   aggregate_id, payload, signature_verified)
                        VALUES ('shop', :eventId, :eventType, 'order', :orderId, '{}', true)""")
                .bind("eventId", eventId)
                .bind("eventType", eventType)
                .bind("orderId", orderId)
                .execute());
    }

    private int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
