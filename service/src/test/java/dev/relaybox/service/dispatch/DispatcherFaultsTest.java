package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.Visibility;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.statemachine.StateMachineConfig;
import dev.relaybox.activities.statemachine.TransitionConfig;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.VisibilityLimits;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dispatcher when rows cannot start and when Temporal cannot be reached: real PostgreSQL, real HTTP. */
class DispatcherFaultsTest {
    static final String QUEUE = "dispatch-faults-test";

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        receiver = new TestReceiver();
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(DeliverySettings.defaults().withAllowedPrivateNetworks("127.0.0.0/8"))
                                .withMachines(orderMachine()),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.insert("receiver", receiver.url("/hooks"), WebhookSigner.newSecret(), List.of("*")));
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void unstartableRowsAtTheHeadAreDeadLetteredWithTheReasonWhileGoodRowsOfBothSourcesFlow() {
        // Inserted through the documented outbox contract by plain SQL, so no API limit applied: 50 payloads over
        // 2 MiB, which cannot travel through the engine, ahead of everything else.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, created_at)
                SELECT 'order', 'big-' || g, 'order.created', jsonb_build_object('blob', repeat('x', 2 * 1024 * 1024 + g)),
                       now() - interval '1 hour'
                  FROM generate_series(1, 50) g"""));
        // Long but valid: aggregate ids and event types over a search attribute's 2 KiB, which only visibility
        // cannot show in full.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, created_at)
                SELECT 'order', repeat('a', 3000) || g, 'order.created', '{}', now() - interval '1 hour'
                  FROM generate_series(1, 50) g"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, created_at)
                SELECT 'order', 'long-type-' || g, 'order.' || repeat('t', 3000) || g, '{}', now() - interval '1 hour'
                  FROM generate_series(1, 10) g"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, aggregate_id,
                                           payload, signature_verified, received_at)
                SELECT 'shop', 'long-' || g, 'order.created', 'order', repeat('a', 3000) || g, '{}', true,
                       now() - interval '1 hour'
                  FROM generate_series(1, 10) g"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                SELECT 'order', 'good-' || g, 'order.created', jsonb_build_object('n', g) FROM generate_series(1, 20) g"""));
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, aggregate_id,
                                           payload, signature_verified)
                SELECT 'shop', 'good-' || g, 'order.created', 'order', 'good-' || g, '{}', true
                  FROM generate_series(1, 20) g"""));

        Dispatcher dispatcher = dispatcher(env.getWorkflowClient(), new DispatcherFactory());
        CompletableFuture<Integer> pass = CompletableFuture.supplyAsync(dispatcher::dispatchAll);

        assertThat(pass).succeedsWithin(Duration.ofMinutes(2)).isEqualTo(110);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.received("/hooks").size() >= 80);
        await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM entities") == 30);
        assertThat(receiver.received("/hooks")).hasSize(80);
        assertThat(
                        count(
                                "SELECT count(*) FROM outbox_events WHERE status = 'QUARANTINED' AND dispatched_at IS NOT NULL"))
                .isEqualTo(50);
        assertThat(count("SELECT count(*) FROM webhook_inbox WHERE status = 'QUARANTINED'"))
                .isZero();
        List<String> reasons =
                jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters WHERE resolved_at IS NULL")
                        .mapTo(String.class)
                        .list());
        assertThat(reasons).hasSize(50).allSatisfy(r -> assertThat(r).contains("payload is larger than 2 MiB"));
        // What visibility shows of a long field is cut to a keyword's size, never the reason a row stays behind.
        UUID longAggregate = jdbi.withHandle(
                h -> h.createQuery("SELECT id FROM outbox_events WHERE aggregate_id = repeat('a', 3000) || '1'")
                        .mapTo(UUID.class)
                        .one());
        String shown = Visibility.attribute(
                env.getWorkflowClient(),
                OutboxDeliveryWorkflow.workflowId(longAggregate),
                RelaySearchAttributes.AGGREGATE);
        assertThat(shown).startsWith("order:aaa").endsWith("…");
        assertThat(VisibilityLimits.utf8Bytes(shown)).isLessThanOrEqualTo(VisibilityLimits.KEYWORD_BYTES);

        List<String> in = new ArrayList<>();
        List<String> poison = new ArrayList<>();
        jdbi.useHandle(h -> h.createQuery(
                        "SELECT id::text AS id, aggregate_id LIKE 'big-%' AS poison FROM outbox_events")
                .mapToMap()
                .forEach(row -> {
                    if ((Boolean) row.get("poison")) {
                        poison.add((String) row.get("id"));
                        in.add((String) row.get("id"));
                    } else {
                        in.add(FaultFigures.delivery(row.get("id"), "receiver"));
                    }
                }));
        in.addAll(jdbi.withHandle(h -> h.createQuery("SELECT partner_event_id FROM webhook_inbox")
                .mapTo(String.class)
                .list()));
        List<String> seen = new ArrayList<>(FaultFigures.appliedInbound(jdbi));
        receiver.received("/hooks").stream()
                .filter(r -> r.status() == 200)
                .forEach(r -> seen.add(FaultFigures.delivery(r.header("webhook-id"), "receiver")));
        FaultFigures.count(
                        "50 unstartable rows (payload over 2 MiB) ahead of 110 good or long-but-valid ones",
                        getClass(),
                        in,
                        seen,
                        FaultFigures.deadLetters(jdbi),
                        poison)
                .print()
                .assertTargets();
    }

    @Test
    void whileTemporalIsUnreachableNoRowLockOrConnectionIsHeldAndNothingIsLost() throws Exception {
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                SELECT 'order', 'down-' || g, 'order.created', '{}' FROM generate_series(1, 5) g"""));
        WorkflowServiceStubs unreachable = unreachableTemporal();
        CountDownLatch starting = new CountDownLatch(1);
        Dispatcher dispatcher = dispatcherTelling(unreachable, starting);
        CompletableFuture<Integer> pass = CompletableFuture.supplyAsync(dispatcher::dispatchAll);

        assertThat(starting.await(30, TimeUnit.SECONDS)).isTrue();
        // While the starts fail, another transaction can lock every row, and no session sits in a transaction.
        List<UUID> locked = jdbi.inTransaction(h -> h.createQuery("SELECT id FROM outbox_events FOR UPDATE NOWAIT")
                .mapTo(UUID.class)
                .list());
        assertThat(locked).hasSize(5);
        assertThat(count("""
                SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND state LIKE 'idle in transaction%'""")).isZero();

        assertThat(pass).succeedsWithin(Duration.ofMinutes(2)).isEqualTo(0);
        unreachable.shutdownNow();
        assertThat(count("SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL AND status = 'PENDING'"))
                .isEqualTo(5);
        assertThat(count("SELECT count(*) FROM dead_letters")).isZero();

        // Temporal is back: the same rows are dispatched and delivered.
        assertThat(dispatcher(env.getWorkflowClient(), new DispatcherFactory()).dispatchAll())
                .isEqualTo(5);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.received("/hooks").size() == 5);

        List<String> in =
                jdbi
                        .withHandle(h -> h.createQuery("SELECT id FROM outbox_events")
                                .mapTo(UUID.class)
                                .list())
                        .stream()
                        .map(id -> FaultFigures.delivery(id, "receiver"))
                        .toList();
        List<String> seen = receiver.received("/hooks").stream()
                .filter(r -> r.status() == 200)
                .map(r -> FaultFigures.delivery(r.header("webhook-id"), "receiver"))
                .toList();
        FaultFigures.count(
                        "Temporal unreachable while the dispatcher starts workflows",
                        getClass(),
                        in,
                        seen,
                        FaultFigures.deadLetters(jdbi))
                .print()
                .assertTargets();
    }

    @Test
    void reconcilerHoldsNoRowLockWhileItsStartsWaitForAnUnreachableTemporalAndHandsTheRowsBack() throws Exception {
        // Dispatched an hour ago and never progressed: their workflows are presumed lost.
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, status, dispatched_at)
                SELECT 'order', 'lost-' || g, 'order.created', '{}', 'DISPATCHED', now() - interval '1 hour'
                  FROM generate_series(1, 5) g"""));
        WorkflowServiceStubs unreachable = unreachableTemporal();
        CountDownLatch starting = new CountDownLatch(1);
        Dispatcher reconciler = dispatcherTelling(unreachable, starting);
        CompletableFuture<Integer> pass = CompletableFuture.supplyAsync(() -> reconciler.reconcile(Instant.now()));

        assertThat(starting.await(30, TimeUnit.SECONDS)).isTrue();
        List<UUID> locked = jdbi.inTransaction(h -> h.createQuery("SELECT id FROM outbox_events FOR UPDATE NOWAIT")
                .mapTo(UUID.class)
                .list());
        assertThat(locked).hasSize(5);

        assertThat(pass).succeedsWithin(Duration.ofMinutes(2)).isEqualTo(0);
        unreachable.shutdownNow();
        assertThat(count("SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL AND status = 'PENDING'"))
                .as("rows whose restart failed go back to the dispatcher")
                .isEqualTo(5);
        assertThat(count("SELECT count(*) FROM dead_letters")).isZero();

        assertThat(dispatcher(env.getWorkflowClient(), new DispatcherFactory()).dispatchAll())
                .isEqualTo(5);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.received("/hooks").size() == 5);
    }

    /** A frontend address where nothing listens. */
    private static WorkflowServiceStubs unreachableTemporal() {
        return WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget("127.0.0.1:" + TestApp.freePort())
                .build());
    }

    /** A dispatcher of outbox rows through {@code stubs}, counting {@code starting} down at its first start. */
    private Dispatcher dispatcherTelling(WorkflowServiceStubs stubs, CountDownLatch starting) {
        DispatcherFactory config =
                new ObjectMapper().convertValue(Map.of("startTimeout", "3s"), DispatcherFactory.class);
        return new Dispatcher(
                jdbi,
                List.of(new WatchedSource(
                        new OutboxDispatchSource(new WorkflowStarter(WorkflowClient.newInstance(stubs), QUEUE)),
                        row -> starting.countDown())),
                config,
                DeadLetters.loggingOnly());
    }

    private Dispatcher dispatcher(WorkflowClient client, DispatcherFactory config) {
        WorkflowStarter starter = new WorkflowStarter(client, QUEUE);
        return new Dispatcher(
                jdbi,
                List.of(new OutboxDispatchSource(starter), new InboxDispatchSource(starter)),
                config,
                DeadLetters.loggingOnly());
    }

    private int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    private static Map<String, StateMachine> orderMachine() {
        return StateMachine.fromConfig(Map.of(
                "order",
                new StateMachineConfig(
                        List.of("created"),
                        "created",
                        Map.of("order.created", new TransitionConfig(List.of("none"), "created", null)))));
    }
}
