package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.statemachine.StateMachineConfig;
import dev.relaybox.activities.statemachine.TransitionConfig;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inbox rows through the dispatcher, the real inbox activities and PostgreSQL: their workflow ids (partner {@code shop}
 * with event {@code eu-1} and partner {@code shop-eu} with event {@code 1} are two events with two workflows), and
 * the plan a dispatcher beside the worker makes in its claim.
 */
class InboxDispatchTest {
    static final String QUEUE = "inbox-dispatch-test";
    // A long recheck: a deferred event that moves quickly was moved by a release signal.
    static final InboxSettings SETTINGS = new InboxSettings(Duration.ofHours(1), Duration.ofHours(24));

    Jdbi jdbi;
    TestWorkflowEnvironment env;
    Dispatcher dispatcher;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withMachines(orderMachine())
                                .withInbox(SETTINGS),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
        dispatcher = new Dispatcher(
                jdbi,
                List.of(new InboxDispatchSource(new WorkflowStarter(env.getWorkflowClient(), QUEUE))),
                new DispatcherFactory(),
                DeadLetters.loggingOnly());
    }

    @AfterEach
    void stop() {
        env.close();
    }

    @Test
    void eventsWhoseIdsUsedToCollideAreBothProcessed() {
        receive("shop", "eu-1", "order.created", "A");
        receive("shop-eu", "1", "order.created", "B");

        dispatcher.dispatchAll();

        awaitEntity("A", "created");
        awaitEntity("B", "created");
    }

    @Test
    void releaseReachesTheDeferredEventOfItsOwnRowOnly() {
        receive("shop", "c-A", "order.created", "A");
        receive("shop", "c-B", "order.created", "B");
        dispatcher.dispatchAll();
        awaitEntity("A", "created");
        awaitEntity("B", "created");
        UUID shippedA = receive("shop", "eu-1", "order.shipped", "A");
        UUID shippedB = receive("shop-eu", "1", "order.shipped", "B");
        dispatcher.dispatchAll();
        awaitStatus(shippedA, "DEFERRED");
        awaitStatus(shippedB, "DEFERRED");

        receive("shop", "p-A", "order.paid", "A");
        dispatcher.dispatchAll();

        awaitEntity("A", "shipped");
        assertThat(status(shippedA)).isEqualTo("PROCESSED");
        assertThat(status(shippedB)).isEqualTo("DEFERRED");
    }

    @Test
    void eventDispatchedUnderTheEarlierIdIsStillReleasedAndNeverStartedTwice() {
        receive("shop-eu", "c-B", "order.created", "B");
        dispatcher.dispatchAll();
        awaitEntity("B", "created");
        // Stored and started by the earlier release, whose id for (shop-eu, 1) was inbox-shop-eu-1; the migration
        // recorded that id on the row.
        UUID shipped = receive("shop-eu", "1", "order.shipped", "B");
        String earlierId = "inbox-shop-eu-1";
        jdbi.useHandle(h -> h.createUpdate(
                        "UPDATE webhook_inbox SET workflow_id = :workflowId, dispatched_at = now() WHERE id = :id")
                .bind("workflowId", earlierId)
                .bind("id", shipped)
                .execute());
        WorkflowClient.start(
                env.getWorkflowClient()
                        .newWorkflowStub(
                                InboxEventWorkflow.class,
                                WorkflowOptions.newBuilder()
                                        .setTaskQueue(QUEUE)
                                        .setWorkflowId(earlierId)
                                        .build())::process,
                shipped,
                null);
        awaitStatus(shipped, "DEFERRED");

        // A pass after its recheck was due: the reconciler looks at the row, and finds its workflow running.
        dispatcher.reconcile(Instant.now().plus(Duration.ofHours(2)));
        receive("shop-eu", "p-B", "order.paid", "B");
        dispatcher.dispatchAll();

        awaitEntity("B", "shipped");
        assertThatThrownBy(() -> env.getWorkflowClient()
                        .newUntypedWorkflowStub(InboxEventWorkflow.workflowId("shop-eu", "1"))
                        .describe())
                .isInstanceOf(WorkflowNotFoundException.class);
    }

    @Test
    void aDispatcherBesideTheWorkerPlansInItsClaimAndTheWorkflowGoesStraightToDeciding() {
        Dispatcher planning = new Dispatcher(
                jdbi,
                List.of(new InboxDispatchSource(new WorkflowStarter(env.getWorkflowClient(), QUEUE), SETTINGS)),
                new DispatcherFactory(),
                DeadLetters.loggingOnly());
        UUID paid = receive("shop", "p-A", "order.paid", "A");
        planning.dispatchAll();
        awaitStatus(paid, "DEFERRED");

        UUID created = receive("shop", "c-A", "order.created", "A");
        planning.dispatchAll();

        awaitEntity("A", "paid");
        awaitStatus(paid, "PROCESSED");
        assertThat(status(created)).isEqualTo("PROCESSED");
        assertThat(markers(InboxEventWorkflow.workflowId("shop", "c-A")))
                .as("the decision's marker alone: no plan read in the workflow")
                .isEqualTo(1);
        assertThat(markers(InboxEventWorkflow.workflowId("shop", "p-A")))
                .as("decide, record the deferral's start, decide again after the release")
                .isEqualTo(3);
    }

    private long markers(String workflowId) {
        return env.getWorkflowClient().fetchHistory(workflowId).getEvents().stream()
                .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                .count();
    }

    private static Map<String, StateMachine> orderMachine() {
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>();
        transitions.put("order.created", new TransitionConfig(List.of("none"), "created", null));
        transitions.put("order.paid", new TransitionConfig(List.of("created"), "paid", null));
        transitions.put("order.shipped", new TransitionConfig(List.of("paid"), "shipped", null));
        return StateMachine.fromConfig(
                Map.of("order", new StateMachineConfig(List.of("created", "paid", "shipped"), "created", transitions)));
    }

    private UUID receive(String partner, String eventId, String eventType, String orderId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, aggregate_id,
                                                   payload, signature_verified)
                        VALUES (:partner, :eventId, :eventType, 'order', :orderId, '{}', true)
                        RETURNING id""")
                .bind("partner", partner)
                .bind("eventId", eventId)
                .bind("eventType", eventType)
                .bind("orderId", orderId)
                .mapTo(UUID.class)
                .one());
    }

    private String status(UUID inboxId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM webhook_inbox WHERE id = :id")
                .bind("id", inboxId)
                .mapTo(String.class)
                .one());
    }

    private void awaitStatus(UUID inboxId, String expected) {
        await().atMost(Duration.ofSeconds(30)).until(() -> status(inboxId).equals(expected));
    }

    private void awaitEntity(String orderId, String state) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbi.withHandle(h -> h.createQuery(
                                        "SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = :id")
                                .bind("id", orderId)
                                .mapTo(String.class)
                                .findOne()
                                .orElse(""))
                        .equals(state));
    }
}
