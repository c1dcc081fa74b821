package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.Visibility;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.VisibilityLimits;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One event to 200 subscribed endpoints: what broke on a real Temporal server (one RelayPeer keyword of all
 * URLs, over its 2 KiB limit) and what a big fan-out must not do (start every attempt at once).
 */
class FanOutWorkflowTest {
    static final String QUEUE = "fan-out-test";
    static final int ENDPOINTS = 200;

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        // A receiver's own latency, so that requests the workflow lets run together really overlap.
        receiver = new TestReceiver().latency(Duration.ofMillis(30));
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(OutboxDeliveryWorkflowTest.SCHEDULE)
                .withAllowedPrivateNetworks("127.0.0.0/8")
                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults().withDelivery(settings),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void twoHundredEndpointsEachGetTheEventOnceWithinTheServerLimits() throws Exception {
        List<String> names = IntStream.range(0, ENDPOINTS)
                .mapToObj(i -> String.format("endpoint-%03d", i))
                .toList();
        jdbi.useExtension(
                EndpointStore.class,
                dao -> names.forEach(
                        name -> dao.insert(name, receiver.url("/" + name), WebhookSigner.newSecret(), List.of("*"))));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        String workflowId = OutboxDeliveryWorkflow.workflowId(outboxId);
        WorkflowClient client = env.getWorkflowClient();

        OutboxDeliveryWorkflow workflow = client.newWorkflowStub(
                OutboxDeliveryWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(workflowId)
                        .build());
        // The first run's: a run slowed enough to retry may continue as new, and that run lists what it follows.
        WorkflowExecution firstRun = WorkflowClient.start(workflow::deliver, outboxId, null);
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(receiver.requestsByPath())
                .hasSize(ENDPOINTS)
                .allSatisfy((path, count) -> assertThat(count).as(path).isEqualTo(1));
        assertThat(names)
                .allSatisfy(name -> assertThat(receiver.requestsByPath()).containsKey("/" + name));
        int delivered = jdbi.withHandle(
                h -> h.createQuery("SELECT count(*) FROM deliveries WHERE outbox_id = :id AND status = 'DELIVERED'")
                        .bind("id", outboxId)
                        .mapTo(int.class)
                        .one());
        assertThat(delivered).isEqualTo(ENDPOINTS);
        assertThat(receiver.maxInFlight())
                .as("HTTP requests in flight at once")
                .isLessThanOrEqualTo(OutboxDeliveryWorkflowImpl.MAX_ATTEMPTS_IN_FLIGHT);

        // Read back what a real server would have checked.
        List<String> endpoints = Visibility.attribute(client, firstRun, RelaySearchAttributes.ENDPOINTS);
        // The run lists the deliveries it follows, at most the first fifty by name and how many more: all of them,
        // unless a workflow task of a loaded machine timed out after some were delivered, and the task made again
        // planned only the rest.
        assertThat(endpoints).isNotEmpty().hasSizeLessThanOrEqualTo(VisibilityLimits.MAX_ENDPOINT_NAMES + 1);
        List<String> listed = endpoints.subList(0, Math.min(endpoints.size(), VisibilityLimits.MAX_ENDPOINT_NAMES));
        assertThat(listed).doesNotHaveDuplicates().isSubsetOf(names);
        if (endpoints.size() > VisibilityLimits.MAX_ENDPOINT_NAMES) {
            assertThat(endpoints.get(VisibilityLimits.MAX_ENDPOINT_NAMES)).matches("\\+[1-9][0-9]* more");
        }
        assertThat(Visibility.attribute(client, firstRun, RelaySearchAttributes.PEER))
                .isNull();
        Map<String, Payload> indexed = Visibility.recordedAttributes(client, firstRun);
        assertThat(indexed)
                .containsKey("RelayEndpoints")
                .allSatisfy((name, value) ->
                        assertThat(value.getData().size()).as(name).isLessThanOrEqualTo(2048));
        int total = indexed.entrySet().stream()
                .mapToInt(e -> e.getKey().length() + e.getValue().getSerializedSize())
                .sum();
        assertThat(total).as("all search attributes").isLessThanOrEqualTo(40 * 1024);

        int events = client.fetchHistory(workflowId).getEvents().size();
        System.out.printf(
                "fan-out to %d endpoints: %d history events (%.1f per endpoint), at most %d requests "
                        + "at once, search attributes %d bytes%n",
                ENDPOINTS, events, (double) events / ENDPOINTS, receiver.maxInFlight(), total);
        WorkflowReplayer.replayWorkflowExecution(client.fetchHistory(workflowId), OutboxDeliveryWorkflowImpl.class);

        List<String> in = names.stream()
                .map(name -> FaultFigures.delivery(outboxId, name))
                .toList();
        List<String> seen = new ArrayList<>();
        receiver.requestsByPath()
                .forEach((path, count) ->
                        seen.addAll(Collections.nCopies(count, FaultFigures.delivery(outboxId, path.substring(1)))));
        FaultFigures.count(
                        "one event fanned out to 200 endpoints (a delivery each)",
                        getClass(),
                        in,
                        seen,
                        FaultFigures.deadLetters(jdbi))
                .print()
                .assertTargets();
    }
}
