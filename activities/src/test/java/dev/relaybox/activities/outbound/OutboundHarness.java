package dev.relaybox.activities.outbound;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.Endpoint;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHeadersStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jdbi.v3.core.Jdbi;

/**
 * The outbound side for tests of endpoint controls: a fresh PostgreSQL, the delivery workflow with both of its
 * real activity implementations, and a Temporal test server with or without time skipping.
 */
final class OutboundHarness implements AutoCloseable {
    static final String QUEUE = "controls-test";

    final Jdbi jdbi = TestDatabase.fresh();
    final TestWorkflowEnvironment env;

    OutboundHarness(boolean timeSkipping, DeliverySchedule schedule, CircuitSettings circuit) {
        this(timeSkipping, schedule, circuit, Duration.ofSeconds(10));
    }

    /** {@code deadline}: how long a receiver may take to answer. */
    OutboundHarness(boolean timeSkipping, DeliverySchedule schedule, CircuitSettings circuit, Duration deadline) {
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(schedule)
                // The receivers are on loopback, for the operator's endpoints and tenants' alike.
                .withAddresses(AddressPolicy.allowing("127.0.0.0/8")
                        .withTenantNetworks(AddressBlock.parseList("127.0.0.0/8", AddressPolicy.TENANT_SETTING)))
                .withTimeouts(Duration.ofSeconds(2), deadline);
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(settings)
                                .withCircuit(circuit),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()),
                TestEnvironmentOptions.newBuilder()
                        .setUseTimeskipping(timeSkipping)
                        .build());
    }

    UUID endpoint(String name, String url, EndpointControls controls) {
        return endpoint(null, name, url, controls);
    }

    /** An endpoint of {@code tenant} (null: the operator's own), subscribed to every event type. */
    UUID endpoint(String tenant, String name, String url, EndpointControls controls) {
        return jdbi.inTransaction(h -> {
            Endpoint endpoint = h.attach(EndpointStore.class)
                    .insert(tenant, name, url, WebhookSigner.newSecret(), List.of("*"))
                    .orElseThrow();
            h.attach(EndpointStore.class).setControls(endpoint.id(), controls);
            return endpoint.id();
        });
    }

    /** An operator's endpoint whose deliveries go to a broker: {@code url} names it, {@code destination} the rest. */
    UUID endpoint(String name, String url, Destination destination, EndpointControls controls) {
        UUID id = endpoint(name, url, controls);
        jdbi.useExtension(EndpointHeadersStore.class, store -> store.setDestination(id, destination.toJson()));
        return id;
    }

    UUID enqueue(String aggregateId, String payload) {
        return enqueue(null, aggregateId, payload);
    }

    /** An event of {@code tenant} (null: the operator's own). */
    UUID enqueue(String tenant, String aggregateId, String payload) {
        return jdbi.inTransaction(
                h -> Outbox.enqueue(h, new OutboxEvent("order.updated", "order", aggregateId, payload, tenant)));
    }

    /** Starts the delivery workflow of each row without waiting for it. */
    void start(List<UUID> outboxIds) {
        WorkflowClient client = env.getWorkflowClient();
        for (UUID outboxId : outboxIds) {
            OutboxDeliveryWorkflow workflow = client.newWorkflowStub(
                    OutboxDeliveryWorkflow.class,
                    WorkflowOptions.newBuilder()
                            .setTaskQueue(QUEUE)
                            .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                            .build());
            WorkflowClient.start(workflow::deliver, outboxId, null);
        }
    }

    /**
     * Waits for every one of them; with time skipping, Temporal's clock runs ahead meanwhile. A run that never
     * finishes fails the test after three minutes instead of holding up the build.
     */
    void awaitAll(List<UUID> outboxIds) {
        awaitAll(outboxIds, Duration.ofMinutes(3));
    }

    /** As {@link #awaitAll(List)}, failing when one has not finished within {@code limit} of real time. */
    void awaitAll(List<UUID> outboxIds, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (UUID outboxId : outboxIds) {
            try {
                env.getWorkflowClient()
                        .newUntypedWorkflowStub(OutboxDeliveryWorkflow.workflowId(outboxId))
                        .getResult(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS, Void.class);
            } catch (TimeoutException e) {
                throw new AssertionError("the delivery of " + outboxId + " did not finish within " + limit, e);
            }
        }
    }

    /**
     * What a dead-letter replay does to every delivery of a row: back to pending, then the dispatcher's
     * signal-with-start; returns when the run has finished.
     */
    void replay(UUID outboxId) {
        replay(env.getWorkflowClient(), jdbi, QUEUE, outboxId);
    }

    /** As above, for the workflows on {@code taskQueue} of any test's engine. */
    static void replay(WorkflowClient client, Jdbi jdbi, String taskQueue, UUID outboxId) {
        List<UUID> deliveries = jdbi.withHandle(h -> h.createQuery("SELECT id FROM deliveries WHERE outbox_id = :id")
                .bind("id", outboxId)
                .mapTo(UUID.class)
                .list());
        jdbi.useExtension(DeliveryStore.class, store -> store.resetForReplay(deliveries));
        WorkflowStub replay = client.newUntypedWorkflowStub(
                OutboxDeliveryWorkflow.TYPE,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(taskQueue)
                        .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                        .build());
        replay.signalWithStart("replan", new Object[0], new Object[] {outboxId});
        replay.getResult(Void.class);
    }

    /** A schedule of {@code attempts} attempts, {@code delay} apart. */
    static DeliverySchedule schedule(Duration delay, int attempts) {
        return new DeliverySchedule(Collections.nCopies(attempts - 1, delay), 0, Duration.ofMinutes(10));
    }

    int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    String circuit(UUID endpointId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT circuit FROM endpoint_state WHERE endpoint_id = :id")
                .bind("id", endpointId)
                .mapTo(String.class)
                .findOne()
                .orElse("CLOSED"));
    }

    @Override
    public void close() {
        env.close();
    }
}
