package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.service.temporal.TemporalDevServer;
import dev.relaybox.service.temporal.TemporalSetup;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher against the real Temporal server before {@code relaybox temporal setup} ran on it, as after a
 * cluster lost its state: a start it refuses for the missing setup leaves the row waiting, and the row starts once
 * the setup is done. And against a server that lost its state: rows waiting for their workflows are re-driven at
 * once, not when their recorded times have passed by the reconciler's grace.
 */
class DispatcherOnRealTemporalTest {
    private static final String QUEUE = "dispatch-real-test";

    Jdbi jdbi;
    TemporalDevServer temporal;
    WorkflowServiceStubs stubs;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        temporal = RealTemporal.start("dispatch");
        stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget(temporal.address())
                .build());
    }

    @AfterEach
    void stop() {
        stubs.shutdownNow();
        temporal.close();
    }

    @Test
    void aRowWaitsForTheSearchAttributesOfANamespaceNotSetUpThenStarts() {
        // The dev server's default namespace exists; Relaybox's search attributes are not registered in it.
        Dispatcher dispatcher = dispatcher("default");
        UUID row = enqueue();

        assertThat(dispatcher.dispatchAll()).isZero();
        assertThat(deadLetters()).as("dead letters before the setup").isZero();
        assertThat(undispatched()).as("rows waiting for the setup").isEqualTo(1);

        try (TemporalSetup setup = new TemporalSetup(stubs, "default", Duration.ofSeconds(30))) {
            setup.ensureSearchAttributes();
        }

        assertThat(dispatcher.dispatchAll()).isEqualTo(1);
        assertThat(undispatched()).isZero();
        assertThat(workflowRuns("default", row)).isTrue();
    }

    @Test
    void aRowWaitsForAMissingNamespaceThenStarts() {
        Dispatcher dispatcher = dispatcher("relaybox-new");
        UUID row = enqueue();

        assertThat(dispatcher.dispatchAll()).isZero();
        assertThat(deadLetters()).as("dead letters before the setup").isZero();
        assertThat(undispatched()).as("rows waiting for the setup").isEqualTo(1);

        try (TemporalSetup setup = new TemporalSetup(stubs, "relaybox-new", Duration.ofSeconds(30))) {
            setup.run(Duration.ofDays(1));
        }

        assertThat(dispatcher.dispatchAll()).isEqualTo(1);
        assertThat(undispatched()).isZero();
        assertThat(workflowRuns("relaybox-new", row)).isTrue();
    }

    @Test
    void aServerHoldingNoneOfTheWorkflowsOfWaitingRowsIsReDrivenAtOnce() throws InterruptedException {
        try (TemporalSetup setup = new TemporalSetup(stubs, "default", Duration.ofSeconds(30))) {
            setup.ensureSearchAttributes();
        }
        // Started on a server since lost: the row's delivery waits an hour for its next attempt, so neither the
        // reconciler's first pass nor its grace would re-drive it now.
        UUID row = enqueue();
        assertThat(dispatcher("default").dispatchAll()).isEqualTo(1);
        UUID endpoint = jdbi.withExtension(
                        EndpointStore.class,
                        dao -> dao.insert(
                                "shop", "https://shop.example/hooks", WebhookSigner.newSecret(), List.of("*")))
                .orElseThrow()
                .id();
        jdbi.useHandle(h ->
                h.createUpdate("""
                        INSERT INTO deliveries (outbox_id, endpoint_id, status, attempts, next_attempt_at)
                        VALUES (:row, :endpoint, 'RETRYING', 1, now() + interval '1 hour')""").bind("row", row).bind("endpoint", endpoint).execute());

        TemporalDevServer empty = RealTemporal.start("dispatch-empty");
        WorkflowServiceStubs emptyStubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget(empty.address())
                .build());
        try (TemporalSetup setup = new TemporalSetup(emptyStubs, "default", Duration.ofSeconds(30))) {
            setup.ensureSearchAttributes();
            WorkflowClient emptyClient = WorkflowClient.newInstance(
                    emptyStubs,
                    WorkflowClientOptions.newBuilder().setNamespace("default").build());
            Dispatcher dispatcher = new Dispatcher(
                    jdbi,
                    List.of(new OutboxDispatchSource(new WorkflowStarter(emptyClient, QUEUE))),
                    new DispatcherFactory(),
                    DeadLetters.loggingOnly());
            dispatcher.watchFor(new EmptyEngine(emptyClient));
            dispatcher.start();
            try {
                await("the row's workflow started again on the empty server")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> emptyClient
                                        .countWorkflows("WorkflowId = 'outbox-" + row + "'")
                                        .getCount()
                                == 1);
            } finally {
                dispatcher.stop();
            }
        } finally {
            emptyStubs.shutdownNow();
            empty.close();
        }
    }

    @Test
    void eachTenantsWorkflowsCarryTheTenantAsTheirFairnessKey() {
        try (TemporalSetup setup = new TemporalSetup(stubs, "default", Duration.ofSeconds(30))) {
            setup.ensureSearchAttributes();
        }
        jdbi.useHandle(h -> h.execute("INSERT INTO tenants (key, name) VALUES ('acme', 'Acme')"));
        UUID own = enqueue();
        UUID acme =
                jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "2", "{}", "acme")));

        assertThat(dispatcher("default").dispatchAll()).isEqualTo(2);

        // The engine orders queued tasks by this key where fairness is on: acme's backlog takes turns with others'.
        assertThat(fairnessKey(acme)).isEqualTo("acme");
        assertThat(fairnessKey(own))
                .as("the operator's own events: one turn of their own")
                .isEmpty();
    }

    private Dispatcher dispatcher(String namespace) {
        WorkflowClient client = WorkflowClient.newInstance(
                stubs,
                WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
        return new Dispatcher(
                jdbi,
                List.of(new OutboxDispatchSource(new WorkflowStarter(client, QUEUE))),
                new DispatcherFactory(),
                DeadLetters.loggingOnly());
    }

    private UUID enqueue() {
        return jdbi.inTransaction(
                h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "1", "{\"total\": 12.5}")));
    }

    private boolean workflowRuns(String namespace, UUID outboxId) {
        return stubs.blockingStub()
                .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
                        .setNamespace(namespace)
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId("outbox-" + outboxId))
                        .build())
                .hasWorkflowExecutionInfo();
    }

    private String fairnessKey(UUID outboxId) {
        return stubs.blockingStub()
                .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
                        .setNamespace("default")
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId("outbox-" + outboxId))
                        .build())
                .getWorkflowExecutionInfo()
                .getPriority()
                .getFairnessKey();
    }

    private int undispatched() {
        return count("SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL");
    }

    private int deadLetters() {
        return count("SELECT count(*) FROM dead_letters");
    }

    private int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
