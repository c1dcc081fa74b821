package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.service.recovery.DeadLetterEdits;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.service.recovery.PayloadSchemas;
import dev.relaybox.store.DeadLetterFilter;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.testing.TestWorkflowEnvironment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A dead letter replayed the instant it is recorded, while the delivery workflow that recorded it is still in the
 * workflow task that did: the replay must take effect once, whatever that task does with the signal that lands in it
 * (Temporal refuses the task's completion and runs it again with the signal). The replay's attempt is made once:
 * delivered, or dead-lettered once more, never a dead letter left open for a delivery that is going again. The activities, the dispatcher, the replay and the
 * receiver are real; only the dead-letter call is wrapped, to replay before it answers.
 */
class OutboxReplayRaceTest {
    static final String QUEUE = "outbox-replay-race";

    final Jdbi jdbi = TestDatabase.fresh();
    final TestReceiver receiver = new TestReceiver();
    TestWorkflowEnvironment env;
    Dispatcher dispatcher;

    @BeforeEach
    void start() {
        DeliverySettings settings = DeliverySettings.defaults()
                .withAllowedPrivateNetworks("127.0.0.0/8")
                .withSchedule(new DeliverySchedule(List.of(), 0, Duration.ofMinutes(10)));
        RelayboxWorkers workers = RelayboxWorkers.build(
                jdbi,
                RelayboxWorkers.Settings.defaults().withDelivery(settings),
                DeadLetters.loggingOnly(),
                new SimpleMeterRegistry());
        env = TestEngine.start(QUEUE, workers.withDelivery(replayedOnceDeadLettered(workers.delivery())));
        dispatcher = new Dispatcher(
                jdbi,
                List.of(new OutboxDispatchSource(new WorkflowStarter(env.getWorkflowClient(), QUEUE))),
                new DispatcherFactory(),
                DeadLetters.loggingOnly());
        jdbi.useExtension(
                EndpointStore.class,
                store -> store.insert("shop", receiver.url("/hooks"), WebhookSigner.newSecret(), List.of("*")));
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @RepeatedTest(3)
    void aReplayWhileTheDeadLetteringTaskRunsIsDeliveredOnce() {
        UUID outboxId = deadLetteredAndReplayedAtOnce(TestReceiver.Reply.of(200));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> finished(outboxId) && status(outboxId).equals("DELIVERED"));
        assertThat(receiver.received("/hooks"))
                .as("the first attempt, then the replay's")
                .hasSize(2);
        assertThat(count("SELECT count(*) FROM dead_letters"))
                .as("the one replayed")
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL"))
                .isZero();
        assertRaced(outboxId);
    }

    @RepeatedTest(3)
    void aReplayWhileTheDeadLetteringTaskRunsThatFailsAgainIsDeadLetteredOnceMore() {
        UUID outboxId = deadLetteredAndReplayedAtOnce(TestReceiver.Reply.of(503));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> finished(outboxId) && status(outboxId).equals("DEAD_LETTERED"));
        assertThat(receiver.received("/hooks"))
                .as("the first attempt, then the replay's")
                .hasSize(2);
        assertThat(count("SELECT count(*) FROM dead_letters"))
                .as("the one replayed, and the replay's own")
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL"))
                .isEqualTo(1);
        assertRaced(outboxId);
    }

    /** One attempt allowed: the first answer (503) dead-letters it, and the replay's attempt gets {@code replay}. */
    private UUID deadLetteredAndReplayedAtOnce(TestReceiver.Reply replay) {
        receiver.script("/hooks", TestReceiver.Reply.of(503), replay);
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "1", "{}")));
        assertThat(dispatcher.dispatchAll()).isEqualTo(1);
        return outboxId;
    }

    /** The fault really happened: the replay's signal landed in the task that recorded the dead letter. */
    private void assertRaced(UUID outboxId) {
        assertThat(env.getWorkflowClient()
                        .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                        .getEvents())
                .anyMatch(e -> e.hasWorkflowTaskFailedEventAttributes()
                        && e.getWorkflowTaskFailedEventAttributes().getCause()
                                == WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND);
    }

    private boolean finished(UUID outboxId) {
        return env.getWorkflowClient()
                        .newUntypedWorkflowStub(OutboxDeliveryWorkflow.workflowId(outboxId))
                        .describe()
                        .getStatus()
                == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED;
    }

    /** The real activities, whose dead-letter call replays its dead letter, as an operator would, before it answers. */
    private DeliveryActivities replayedOnceDeadLettered(DeliveryActivities real) {
        DeadLetterReplay replay = new DeadLetterReplay(
                jdbi, () -> {}, new DeadLetterEdits(Map.of(), 256 * 1024, PayloadSchemas.ACCEPT_ALL));
        return (DeliveryActivities) Proxy.newProxyInstance(
                DeliveryActivities.class.getClassLoader(),
                new Class<?>[] {DeliveryActivities.class},
                (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("deadLetter") && count("SELECT count(*) FROM dead_letters") == 1) {
                        UUID deadLetter = jdbi.withHandle(h -> h.createQuery("SELECT id FROM dead_letters")
                                .mapTo(UUID.class)
                                .one());
                        assertThat(replay.replay(DeadLetterFilter.none(), deadLetter, 1, "alice")
                                        .replayed())
                                .isEqualTo(1);
                        dispatcher.dispatchAll();
                    }
                    return result;
                });
    }

    private String status(UUID outboxId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM deliveries WHERE outbox_id = :id")
                .bind("id", outboxId)
                .mapTo(String.class)
                .one());
    }

    private int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
