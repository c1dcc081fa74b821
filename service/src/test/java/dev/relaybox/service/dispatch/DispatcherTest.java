package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliveryPlanner;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dispatcher and reconciler against a real PostgreSQL and an in-process Temporal, delivering over real HTTP. */
class DispatcherTest {
    static final String QUEUE = "dispatch-test";

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;
    final Map<UUID, AtomicInteger> starts = new ConcurrentHashMap<>();

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        receiver = new TestReceiver();
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(DeliverySettings.defaults().withAllowedPrivateNetworks("127.0.0.0/8")),
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
    void twoDispatchersOnTheSameTableNeverStartARowTwice() throws Exception {
        for (int i = 0; i < 300; i++) {
            enqueue("order.paid", "{\"n\": " + i + "}");
        }
        // About claims, not a slow Temporal: on a loaded machine 300 starts can outlast the default start timeout,
        // whose rows go back to undispatched (DispatcherFaultsTest covers that path).
        DispatcherFactory config =
                new ObjectMapper().convertValue(Map.of("startTimeout", "2m"), DispatcherFactory.class);
        List<Dispatcher> dispatchers = List.of(dispatcher(config), dispatcher(config));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> handedOut = new ArrayList<>();
        for (Dispatcher dispatcher : dispatchers) {
            handedOut.add(threads.submit(() -> {
                go.await();
                return dispatcher.dispatchAll();
            }));
        }
        go.countDown();
        int total = 0;
        for (Future<Integer> f : handedOut) {
            total += f.get();
        }
        threads.shutdown();

        assertThat(total).isEqualTo(300);
        assertThat(starts).hasSize(300);
        assertThat(starts.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(undispatched()).isZero();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.received("/hooks").size() == 300);
    }

    @Test
    void rowsAnotherInstanceHoldsDoNotEndThePassBeforeTheRestAreDispatched() throws Exception {
        for (int i = 0; i < 250; i++) {
            enqueue("order.paid", "{\"n\": " + i + "}");
        }
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        // Another instance's claim in flight: the 50 oldest rows locked, not yet marked dispatched.
        Future<?> otherClaim = other.submit(() -> jdbi.inTransaction(h -> {
            h.createQuery("SELECT id FROM outbox_events ORDER BY created_at LIMIT 50 FOR UPDATE")
                    .mapTo(UUID.class)
                    .list();
            held.countDown();
            return release.await(60, TimeUnit.SECONDS);
        }));
        held.await();

        int started = dispatcher(new DispatcherFactory()).dispatchAll();
        release.countDown();
        otherClaim.get();
        other.shutdown();

        assertThat(started).isEqualTo(200);
        assertThat(undispatched()).isEqualTo(50);
    }

    @Test
    void rowInsertedByPlainSqlIsDelivered() {
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                VALUES ('invoice', '7', 'invoice.issued', '{"total": 12.5}')"""));

        dispatcher(new DispatcherFactory()).dispatchAll();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.received("/hooks").size() == 1);
        assertThat(new String(receiver.received("/hooks").get(0).body()))
                .contains("\"type\" : \"invoice.issued\"", "\"data\" : {\"total\": 12.5}");
    }

    @Test
    void aNewRowStartsItsWorkflowWithoutTheReplanSignalThatAReplayedOneSends() {
        UUID id = enqueue("order.paid", "{}");
        Dispatcher dispatcher = dispatcher(new DispatcherFactory());
        dispatcher.dispatchAll();
        // Closed, not only processed: the delivering attempt marks the row processed before its workflow ends.
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        latestRun(id).stream().anyMatch(HistoryEvent::hasWorkflowExecutionCompletedEventAttributes));
        List<HistoryEvent> first = latestRun(id);
        // Back to undispatched as a dead-letter replay leaves it: its workflow may be running, and must hear of it.
        jdbi.useHandle(h -> h.createUpdate("UPDATE outbox_events SET dispatched_at = NULL WHERE id = :id")
                .bind("id", id)
                .execute());
        dispatcher.dispatchAll();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !latestRun(id).get(0).equals(first.get(0))
                        && latestRun(id).stream().anyMatch(HistoryEvent::hasWorkflowExecutionCompletedEventAttributes));

        assertThat(first).noneMatch(HistoryEvent::hasWorkflowExecutionSignaledEventAttributes);
        assertThat(latestRun(id)).anyMatch(HistoryEvent::hasWorkflowExecutionSignaledEventAttributes);
    }

    @Test
    void aDispatcherBesideTheWorkerPlansInItsClaimAndTheWorkflowGoesStraightToTheAttempt() {
        UUID id = enqueue("order.paid", "{}");
        OutboxDispatchSource planning = new OutboxDispatchSource(
                new WorkflowStarter(env.getWorkflowClient(), QUEUE),
                null,
                new DeliveryPlanner(DeliverySettings.defaults().schedule()));
        Dispatcher dispatcher =
                new Dispatcher(jdbi, List.of(planning), new DispatcherFactory(), DeadLetters.loggingOnly());

        assertThat(dispatcher.dispatchAll()).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        latestRun(id).stream().anyMatch(HistoryEvent::hasWorkflowExecutionCompletedEventAttributes));
        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(latestRun(id).stream()
                        .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                        .count())
                .as("the first attempt's marker alone: no plan made in the workflow")
                .isEqualTo(1);
        String status = jdbi.withHandle(h -> h.createQuery("SELECT status FROM outbox_events WHERE id = :id")
                .bind("id", id)
                .mapTo(String.class)
                .one());
        assertThat(status).isEqualTo("PROCESSED");
    }

    private List<HistoryEvent> latestRun(UUID outboxId) {
        return env.getWorkflowClient()
                .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                .getEvents();
    }

    @Test
    void reconcilerRestartsADispatchedRowWhoseWorkflowWasLost() {
        UUID id = enqueue("order.paid", "{}");
        // Dispatched before a restart that lost Temporal's state: marked, but no workflow exists.
        jdbi.useHandle(h -> h.createUpdate("""
                        UPDATE outbox_events SET status = 'DISPATCHED', dispatched_at = now() - interval '1 hour'
                        WHERE id = :id""").bind("id", id).execute());
        Dispatcher dispatcher = dispatcher(new DispatcherFactory());

        assertThat(dispatcher.dispatchAll()).isZero();
        assertThat(dispatcher.reconcile(Instant.now())).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.received("/hooks").size() == 1);
        assertThat(receiver.received("/hooks").get(0).header("webhook-id")).isEqualTo(id.toString());
    }

    @Test
    void reconcilingARunningWorkflowDoesNotStartASecondOne() {
        receiver.script("/hooks", TestReceiver.Reply.of(503));
        UUID id = enqueue("order.paid", "{}");
        Dispatcher dispatcher = dispatcher(new DispatcherFactory());
        dispatcher.dispatchAll();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.received("/hooks").size() == 1);
        String firstRun = runId(id);

        // A pass long after the next attempt was due: the row is overdue, so the reconciler looks at it.
        int restarted = dispatcher.reconcile(Instant.now().plus(Duration.ofMinutes(10)));

        assertThat(restarted).isZero();
        assertThat(starts.get(id).get()).isEqualTo(2);
        // The second start found the first run still backing off: one workflow, one attempt so far.
        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(runId(id)).isEqualTo(firstRun);
    }

    private String runId(UUID outboxId) {
        return env.getWorkflowClient()
                .newUntypedWorkflowStub("outbox-" + outboxId)
                .describe()
                .getExecution()
                .getRunId();
    }

    private Dispatcher dispatcher(DispatcherFactory config) {
        OutboxDispatchSource real = new OutboxDispatchSource(new WorkflowStarter(env.getWorkflowClient(), QUEUE));
        return new Dispatcher(
                jdbi,
                List.of(new WatchedSource(
                        real,
                        row -> starts.computeIfAbsent(row.id(), id -> new AtomicInteger())
                                .incrementAndGet())),
                config,
                DeadLetters.loggingOnly());
    }

    private UUID enqueue(String eventType, String payload) {
        return jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent(eventType, "order", "1", payload)));
    }

    private int undispatched() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL")
                .mapTo(int.class)
                .one());
    }
}
