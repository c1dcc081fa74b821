package dev.relaybox.activities.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.OutageTrigger;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.StoppablePostgres;
import dev.relaybox.store.Store;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxActivities;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * PostgreSQL freezes (every server process SIGSTOPped) at the moment a workflow makes one particular database call,
 * one case per call of every workflow path that {@link DatabaseOutageTest} does not already cross. The driver has
 * no socket or login timeout (the worst case: a configuration that drops the shipped ones): a call hangs for as long
 * as the server is frozen, and every attempt of it ends in the local activity's start-to-close timeout. The server
 * stays frozen through such a timeout (the first failure is the one that used to escape the workflow), then thaws.
 * Each workflow must go on from where it was and finish, the event delivered or applied once.
 */
@Execution(ExecutionMode.CONCURRENT)
class DatabaseOutageOnEveryPathTest {
    /** The timed-out attempts the frozen call goes through before the server thaws. */
    static final int TIMED_OUT_ATTEMPTS = 1;

    @TempDir
    Path data;

    StoppablePostgres postgres;
    Jdbi db;
    TestReceiver receiver;
    TestWorkflowEnvironment env;
    WorkflowClient client;
    OutageTrigger outage;

    @BeforeEach
    void start() throws IOException {
        postgres = StoppablePostgres.start(data);
        DataSource dataSource = postgres.dataSource(Map.of());
        Migrations.migrate(dataSource);
        db = Store.configure(Jdbi.create(dataSource), TestDatabase.SECRETS);
        receiver = new TestReceiver();
        outage = new OutageTrigger(postgres::pause);
        RelayboxWorkers workers = RelayboxWorkers.build(
                db,
                RelayboxWorkers.Settings.defaults()
                        .withDelivery(DeliverySettings.defaults()
                                .withAllowedPrivateNetworks("127.0.0.0/8")
                                .withSchedule(new DeliverySchedule(
                                        List.of(Duration.ofMinutes(1), Duration.ofMinutes(5)),
                                        0,
                                        Duration.ofMinutes(10))))
                        .withMachines(InboxFixtures.orderMachines())
                        .withInbox(new InboxSettings(Duration.ofMinutes(1), Duration.ofMinutes(30))),
                DeadLetters.loggingOnly(),
                new SimpleMeterRegistry());
        env = TestEngine.start(
                InboxFixtures.QUEUE,
                new RelayboxWorkers(
                        outage.wrap(DeliveryActivities.class, workers.delivery()),
                        outage.wrap(EndpointControlActivities.class, workers.controls()),
                        outage.wrap(InboxActivities.class, workers.inbox())));
        client = env.getWorkflowClient();
    }

    @AfterEach
    void stop() throws IOException {
        if (postgres != null) {
            postgres.resume();
        }
        if (env != null) {
            env.close();
        }
        if (receiver != null) {
            receiver.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void planningAgainAfterADeadLetterReplayJoinsARunningWorkflowWaitsOutTheFrozenDatabase() {
        endpoint("/a", Reply.of(503), Reply.of(200));
        endpoint("/b", Reply.of(400), Reply.of(200));
        UUID outboxId = enqueue();
        startDelivery(outboxId);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> statuses(outboxId).equals(List.of("/a=RETRYING", "/b=DEAD_LETTERED")));

        // A dead-letter replay joins the running workflow: the delivery back to pending, then the replan signal. The
        // workflow plans again once /a, due in a minute, is delivered.
        outage.at(DeliveryActivities.class, "plan", 1);
        db.useExtension(DeliveryStore.class, store -> store.resetForReplay(List.of(deliveryId(outboxId, "/b"))));
        delivery(outboxId).signal("replan");
        CompletableFuture<Void> finished = finishing(OutboxDeliveryWorkflow.workflowId(outboxId));
        frozenThroughTimeouts();

        finished.join();
        assertThat(statuses(outboxId)).containsExactly("/a=DELIVERED", "/b=DELIVERED");
        assertDeliveredOnce(outboxId, "/a", "/b");
        assertThat(FaultFigures.deadLetters(db)).containsExactly(FaultFigures.delivery(outboxId, "/b"));
    }

    @Test
    void planningAWorkflowsFirstRunWaitsOutTheFrozenDatabase() {
        assertDeliveredDespiteAFreezeAt(DeliveryActivities.class, "plan", Reply.of(200));
    }

    @Test
    void anAttemptWaitingForTheFrozenDatabaseIsNotTakenForDeadAndSendsOnce() {
        endpoint("/a", Reply.of(200));
        outage.at(DeliveryActivities.class, "sendFirst", 1);
        UUID outboxId = enqueue();
        startDelivery(outboxId);
        CompletableFuture<Void> finished = finishing(OutboxDeliveryWorkflow.workflowId(outboxId));

        // Past the attempt's heartbeat timeout, the one attempt still waits for the database: none is made beside it.
        await().atMost(Duration.ofSeconds(30)).until(() -> outage.attemptsSinceOutage() == 1);
        await("the frozen attempt, alone")
                .during(Duration.ofSeconds(15))
                .atMost(Duration.ofSeconds(30))
                .until(() -> outage.attemptsSinceOutage() == 1 && postgres.isPaused());
        postgres.resume();

        finished.join();
        assertThat(statuses(outboxId)).containsExactly("/a=DELIVERED");
        assertDeliveredOnce(outboxId, "/a");
        assertThat(count("SELECT count(*) FROM outbox_events WHERE id = '" + outboxId + "' AND status = 'PROCESSED'"))
                .as("finished by the attempt")
                .isOne();
    }

    @Test
    void recordingTheNextAttemptWaitsOutTheFrozenDatabase() {
        assertDeliveredDespiteAFreezeAt(DeliveryActivities.class, "scheduleRetry", Reply.of(503), Reply.of(200));
    }

    @Test
    void finishingTheOutboxRowWaitsOutTheFrozenDatabase() {
        // A row whose last delivery is dead-lettered is finished by the workflow, not by an attempt.
        endpoint("/a", Reply.of(400));
        outage.at(DeliveryActivities.class, "finish", 1);
        UUID outboxId = enqueue();
        startDelivery(outboxId);
        CompletableFuture<Void> finished = finishing(OutboxDeliveryWorkflow.workflowId(outboxId));
        frozenThroughTimeouts();

        finished.join();
        assertThat(statuses(outboxId)).containsExactly("/a=DEAD_LETTERED");
        assertThat(count("SELECT count(*) FROM outbox_events WHERE id = '" + outboxId + "' AND status = 'PROCESSED'"))
                .isOne();
    }

    @Test
    void deadLetteringADeliveryWaitsOutTheFrozenDatabase() {
        endpoint("/a", Reply.of(400));
        outage.at(DeliveryActivities.class, "deadLetter", 1);
        UUID outboxId = enqueue();
        startDelivery(outboxId);
        frozenThroughTimeouts();

        delivery(outboxId).getResult(Void.class);
        assertThat(statuses(outboxId)).containsExactly("/a=DEAD_LETTERED");
        assertThat(FaultFigures.deadLetters(db)).containsExactly(FaultFigures.delivery(outboxId, "/a"));
        assertThat(receiver.received("/a")).hasSize(1);
    }

    @Test
    void recordingTheStartOfADeferralWaitsOutTheFrozenDatabase() {
        UUID paid = receive("paid", "order.paid");
        UUID created = receive("created", "order.created");
        outage.at(InboxActivities.class, "recordDeferralStart", 1);
        InboxFixtures.start(client, "paid", paid);
        frozenThroughTimeouts();

        InboxFixtures.start(client, "created", created);
        finishing(inboxWorkflow("created"), inboxWorkflow("paid")).join();
        assertAppliedOnce();
    }

    @Test
    void decidingADeferredEventAgainAtItsRecheckWaitsOutTheFrozenDatabase() {
        UUID paid = receive("paid", "order.paid");
        UUID created = receive("created", "order.created");
        InboxFixtures.start(client, "paid", paid);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED'") == 1);
        outage.at(InboxActivities.class, "decide", 1, arguments -> paid.equals(arguments[0]));
        CompletableFuture<Void> finished = finishing(inboxWorkflow("paid"));
        frozenThroughTimeouts();

        InboxFixtures.start(client, "created", created);
        finished.join();
        finishing(inboxWorkflow("created")).join();
        assertAppliedOnce();
    }

    @Test
    void deadLetteringAnEventDeferredTooLongWaitsOutTheFrozenDatabase() {
        UUID paid = receive("paid", "order.paid");
        outage.at(InboxActivities.class, "deadLetter", 1);
        InboxFixtures.start(client, "paid", paid);
        CompletableFuture<Void> finished = finishing(inboxWorkflow("paid"));
        frozenThroughTimeouts();

        finished.join();
        assertThat(count("SELECT count(*) FROM webhook_inbox WHERE status = 'QUARANTINED'"))
                .isOne();
        assertThat(FaultFigures.deadLetters(db)).containsExactly("paid");
    }

    /** One endpoint answering {@code replies}; the database freezes at the first {@code method} call. */
    private UUID assertDeliveredDespiteAFreezeAt(Class<?> activities, String method, Reply... replies) {
        endpoint("/a", replies);
        outage.at(activities, method, 1);
        UUID outboxId = enqueue();
        startDelivery(outboxId);
        CompletableFuture<Void> finished = finishing(OutboxDeliveryWorkflow.workflowId(outboxId));
        frozenThroughTimeouts();

        finished.join();
        assertThat(statuses(outboxId)).containsExactly("/a=DELIVERED");
        assertDeliveredOnce(outboxId, "/a");
        assertThat(FaultFigures.deadLetters(db)).isEmpty();
        return outboxId;
    }

    /**
     * Waits for the workflows to complete, failing if one of them fails; meanwhile the test server skips its clock
     * ahead whenever nothing runs.
     */
    private CompletableFuture<Void> finishing(String... workflowIds) {
        return CompletableFuture.runAsync(() -> {
                    for (String workflowId : workflowIds) {
                        client.newUntypedWorkflowStub(workflowId).getResult(Void.class);
                    }
                })
                .orTimeout(3, TimeUnit.MINUTES);
    }

    private void frozenThroughTimeouts() {
        await("the database frozen, through " + TIMED_OUT_ATTEMPTS + " timed-out attempts of the call")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> outage.attemptsSinceOutage() > TIMED_OUT_ATTEMPTS);
        assertThat(postgres.isPaused()).isTrue();
        postgres.resume();
    }

    private void assertAppliedOnce() {
        assertThat(FaultFigures.appliedInbound(db)).containsExactlyInAnyOrder("created", "paid");
        assertThat(count("SELECT count(*) FROM webhook_inbox WHERE status = 'PROCESSED'"))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_events WHERE event_type = 'order.payment_confirmed'"))
                .isOne();
        assertThat(FaultFigures.deadLetters(db)).isEmpty();
    }

    private UUID receive(String eventId, String eventType) {
        return InboxFixtures.receive(db, eventId, eventType, "order", "o", "{}").orElseThrow();
    }

    private static String inboxWorkflow(String eventId) {
        return InboxEventWorkflow.workflowId(InboxFixtures.PARTNER, eventId);
    }

    private int count(String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    private void assertDeliveredOnce(UUID outboxId, String... paths) {
        for (String path : paths) {
            assertThat(receiver.received(path).stream()
                            .filter(r -> r.status() == 200)
                            .map(r -> r.header("webhook-id")))
                    .as("successful deliveries to %s", path)
                    .containsExactly(outboxId.toString());
        }
    }

    private void endpoint(String path, Reply... replies) {
        receiver.script(path, replies);
        db.useExtension(
                EndpointStore.class,
                dao -> dao.insert(path, receiver.url(path), WebhookSigner.newSecret(), List.of("*")));
    }

    private UUID enqueue() {
        return db.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.shipped", "order", "o", "{}")));
    }

    private void startDelivery(UUID outboxId) {
        WorkflowClient.start(
                client.newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(InboxFixtures.QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build())::deliver,
                outboxId,
                null);
    }

    private WorkflowStub delivery(UUID outboxId) {
        return client.newUntypedWorkflowStub(OutboxDeliveryWorkflow.workflowId(outboxId));
    }

    private List<String> statuses(UUID outboxId) {
        return db.withHandle(
                h -> h.createQuery("""
                        SELECT e.name || '=' || d.status FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
                         WHERE d.outbox_id = :id ORDER BY e.name""").bind("id", outboxId).mapTo(String.class).list());
    }

    private UUID deliveryId(UUID outboxId, String endpoint) {
        return db.withHandle(h -> h.createQuery("""
                        SELECT d.id FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
                         WHERE d.outbox_id = :id AND e.name = :endpoint""")
                .bind("id", outboxId)
                .bind("endpoint", endpoint)
                .mapTo(UUID.class)
                .one());
    }
}
