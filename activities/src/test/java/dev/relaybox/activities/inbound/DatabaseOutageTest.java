package dev.relaybox.activities.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.Visibility;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.StoppablePostgres;
import dev.relaybox.store.Store;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * PostgreSQL goes away for longer than the retries used to last, in the middle of inbound and outbound traffic;
 * Temporal's clock is skipped ahead while it is away. It goes away in the two ways that fail differently: paused
 * (every server process SIGSTOPped, as a host freezing or a failover pausing it looks to clients: calls hang until
 * the driver's socket timeout) and stopped (a fast shutdown that ends every session, then refused connections
 * until it starts again on the same data directory and port). When it is back, nothing is lost and nothing is
 * dead-lettered.
 */
@Execution(ExecutionMode.CONCURRENT)
class DatabaseOutageTest {
    static final int INBOUND_EVENTS = 4;
    static final List<String> RECEIVERS = List.of("/a", "/b");

    enum Outage {
        PAUSED("PostgreSQL paused (SIGSTOP) for 6 minutes"),
        STOPPED("PostgreSQL stopped (fast shutdown) for 6 minutes, then started again");

        final String drill;

        Outage(String drill) {
            this.drill = drill;
        }
    }

    @TempDir
    Path data;

    StoppablePostgres postgres;
    Jdbi db;
    TestReceiver receiver;
    TestWorkflowEnvironment env;

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

    @ParameterizedTest
    @EnumSource(Outage.class)
    void sixMinutesWithoutTheDatabaseMidTrafficLoseNothingAndDeadLetterNothing(Outage outage) throws Exception {
        postgres = StoppablePostgres.start(data);
        // What a production pool should have too: a frozen server must fail calls, not hang them forever. Short,
        // because a paused server holds each call for the whole timeout, and the test clock cannot skip ahead while
        // an activity is running: one second per try instead of two halves the drill's wall time, on the same path.
        DataSource dataSource =
                postgres.dataSource(Map.of("loginTimeout", "1", "connectTimeout", "1", "socketTimeout", "5"));
        Migrations.migrate(dataSource);
        db = Store.configure(Jdbi.create(dataSource), TestDatabase.SECRETS);
        receiver = new TestReceiver();
        env = TestEngine.start(
                InboxFixtures.QUEUE,
                RelayboxWorkers.build(
                        db,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(DeliverySettings.defaults()
                                        .withAllowedPrivateNetworks("127.0.0.0/8")
                                        .withSchedule(new DeliverySchedule(
                                                List.of(
                                                        Duration.ofMinutes(1),
                                                        Duration.ofMinutes(5),
                                                        Duration.ofMinutes(15)),
                                                0,
                                                Duration.ofMinutes(10))))
                                .withMachines(InboxFixtures.orderMachines()),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
        WorkflowClient client = env.getWorkflowClient();

        // Outbound: two receivers answer 503 once, so each delivery waits for its second attempt (in 1m).
        for (String path : RECEIVERS) {
            receiver.script(path, TestReceiver.Reply.of(503), TestReceiver.Reply.of(200));
            db.useExtension(
                    EndpointStore.class,
                    dao -> dao.insert(path, receiver.url(path), WebhookSigner.newSecret(), List.of("*")));
        }
        UUID outboxId = db.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.shipped", "order", "o", "{}")));
        WorkflowClient.start(
                client.newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(InboxFixtures.QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build())::deliver,
                outboxId,
                null);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM deliveries WHERE status = 'RETRYING'") == RECEIVERS.size());
        // Inbound: half the events start just before the database stops, half while it is stopped.
        List<UUID> inbox = new ArrayList<>();
        for (int i = 0; i < INBOUND_EVENTS; i++) {
            inbox.add(InboxFixtures.receive(db, "evt-" + i, "order.created", "order", "order-" + i, "{}")
                    .orElseThrow());
        }
        for (int i = 0; i < INBOUND_EVENTS / 2; i++) {
            WorkflowClient.start(InboxFixtures.workflow(client, "evt-" + i)::process, inbox.get(i), null);
        }

        if (outage == Outage.PAUSED) {
            postgres.pause();
        } else {
            postgres.stop();
        }
        for (int i = INBOUND_EVENTS / 2; i < INBOUND_EVENTS; i++) {
            WorkflowClient.start(InboxFixtures.workflow(client, "evt-" + i)::process, inbox.get(i), null);
        }
        env.sleep(Duration.ofMinutes(6));
        String waiting = InboxEventWorkflow.workflowId(InboxFixtures.PARTNER, "evt-" + (INBOUND_EVENTS - 1));
        await().atMost(Duration.ofSeconds(90))
                .until(
                        () -> Visibility.currentDetails(client, waiting),
                        details -> details != null && details.startsWith("waiting for the database since"));
        if (outage == Outage.PAUSED) {
            postgres.resume();
        } else {
            postgres.startAgain();
        }

        for (int i = 0; i < INBOUND_EVENTS; i++) {
            client.newUntypedWorkflowStub(InboxEventWorkflow.workflowId(InboxFixtures.PARTNER, "evt-" + i))
                    .getResult(Void.class);
        }
        client.newUntypedWorkflowStub(OutboxDeliveryWorkflow.workflowId(outboxId))
                .getResult(Void.class);
        assertThat(count("SELECT count(*) FROM dead_letters")).isZero();
        assertThat(count("SELECT count(*) FROM webhook_inbox WHERE status = 'PROCESSED'"))
                .isEqualTo(INBOUND_EVENTS);
        assertThat(count("SELECT count(*) FROM entities")).isEqualTo(INBOUND_EVENTS);
        assertThat(count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(RECEIVERS.size());
        // The attempts the outage prevented were not spent: each delivery succeeded on its second HTTP request,
        // recorded as attempt 2.
        List<Integer> successfulAttempts =
                db.withHandle(h -> h.createQuery("SELECT attempt FROM delivery_attempts WHERE status_code = 200")
                        .mapTo(Integer.class)
                        .list());
        assertThat(successfulAttempts).containsExactly(2, 2);

        List<String> in = new ArrayList<>();
        RECEIVERS.forEach(path -> in.add(FaultFigures.delivery(outboxId, path)));
        for (int i = 0; i < INBOUND_EVENTS; i++) {
            in.add("evt-" + i);
        }
        List<String> seen = new ArrayList<>(FaultFigures.appliedInbound(db));
        receiver.received().stream()
                .filter(r -> r.status() == 200)
                .forEach(r -> seen.add(FaultFigures.delivery(r.header("webhook-id"), r.path())));
        FaultFigures.count(outage.drill, getClass(), in, seen, FaultFigures.deadLetters(db))
                .print()
                .assertTargets();
    }

    private int count(String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
