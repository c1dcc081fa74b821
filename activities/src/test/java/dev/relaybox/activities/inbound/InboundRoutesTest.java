package dev.relaybox.activities.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.InboxIntake;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Partner events routed to the team's own endpoints: the inbox and delivery workflows with their real activities,
 * real PostgreSQL, a real HTTP handler, Temporal's clock skipped ahead.
 */
class InboundRoutesTest {
    static final String QUEUE = "routes-test";
    static final ObjectMapper JSON = new ObjectMapper();
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)), 0, Duration.ofMinutes(10));
    static final String REPO = "octo/hello";

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;
    WorkflowClient client;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        receiver = new TestReceiver();
        InboundRoutes routes = new InboundRoutes(Map.of(
                "github",
                List.of(new InboundRoutes.Route(List.of("push", "pull_request.*"), List.of("handler"))),
                "stripe",
                List.of(new InboundRoutes.Route(List.of("charge.dispute.*", "order.paid"), List.of("handler")))));
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(SCHEDULE)
                .withAllowedPrivateNetworks("127.0.0.0/8")
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
        // The repository type has no state machine; the order type has the design's.
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(settings)
                                .withMachines(InboxFixtures.orderMachines())
                                .withRoutes(routes),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
        client = env.getWorkflowClient();
        endpoint("handler", "/handler", List.of("nothing.subscribed"));
        endpoint("billing", "/billing", List.of("*"));
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void aRoutedEventWithoutAStateMachineReachesOnlyItsHandlerOnceWithThePartnerHeaders() throws Exception {
        String payload = "{\"ref\": \"refs/heads/main\", \"repository\": {\"full_name\": \"" + REPO + "\"}}";
        UUID inboxId = receive("github", "delivery-1", "push", "repository", REPO, payload);

        process("github", "delivery-1", inboxId);
        // A decision run again finds the row processed and forwards nothing more.
        process("github", "delivery-1", inboxId);

        assertThat(inboxRow(inboxId)).isEqualTo("PROCESSED APPLIED");
        UUID outboxId = InboxProcessor.forwardedId(inboxId);
        assertThat(count("SELECT count(*) FROM outbox_events")).isEqualTo(1);
        deliver(outboxId);

        assertThat(receiver.received("/billing"))
                .as("subscribers of * do not get a forwarded event")
                .isEmpty();
        List<TestReceiver.Received> requests = receiver.received("/handler");
        assertThat(requests).hasSize(1);
        TestReceiver.Received request = requests.get(0);
        assertThat(request.header("webhook-id")).isEqualTo(outboxId.toString());
        assertThat(request.header("relaybox-partner")).isEqualTo("github");
        assertThat(request.header("relaybox-partner-event-id")).isEqualTo("delivery-1");
        JsonNode envelope = JSON.readTree(request.body());
        assertThat(envelope.path("type").asText()).isEqualTo("push");
        assertThat(envelope.path("data")).isEqualTo(JSON.readTree(payload));
        assertThat(envelope.path("source"))
                .isEqualTo(JSON.readTree("{\"partner\": \"github\", \"eventId\": \"delivery-1\","
                        + " \"aggregateType\": \"repository\", \"aggregateId\": \"" + REPO + "\"}"));
    }

    @Test
    void aHandlerOutageIsRetriedUnderOneWebhookIdUntilTheHandlerAccepts() {
        receiver.script("/handler", Reply.of(503), Reply.of(503), Reply.of(200));
        UUID inboxId = receive("github", "delivery-1", "pull_request.opened", "repository", REPO, "{}");

        process("github", "delivery-1", inboxId);
        deliver(InboxProcessor.forwardedId(inboxId));

        assertThat(receiver.received("/handler"))
                .extracting(TestReceiver.Received::status)
                .containsExactly(503, 503, 200);
        assertThat(receiver.received("/handler"))
                .extracting(r -> r.header("webhook-id"))
                .containsOnly(InboxProcessor.forwardedId(inboxId).toString());
        assertThat(count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(1);
    }

    @Test
    void aHandlerDownThroughTheWholeScheduleIsDeadLetteredAsAnyDelivery() {
        receiver.script("/handler", Reply.of(503));
        UUID inboxId = receive("github", "delivery-1", "push", "repository", REPO, "{}");

        process("github", "delivery-1", inboxId);
        deliver(InboxProcessor.forwardedId(inboxId));

        assertThat(receiver.received("/handler")).hasSize(4);
        assertThat(count("SELECT count(*) FROM deliveries WHERE status = 'DEAD_LETTERED'"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL"))
                .isEqualTo(1);
        assertThat(inboxRow(inboxId)).as("the inbound side is done").isEqualTo("PROCESSED APPLIED");
    }

    @Test
    void anAggregatesEventsAreForwardedInTheOrderTheyArrivedWhateverOrderTheyAreDecidedIn() {
        UUID first = receive("github", "delivery-1", "push", "repository", REPO, "{\"n\": 1}");
        UUID second = receive("github", "delivery-2", "push", "repository", REPO, "{\"n\": 2}");
        UUID third = receive("github", "delivery-3", "push", "repository", REPO, "{\"n\": 3}");

        startProcessing("github", "delivery-3", third);
        await().atMost(Duration.ofSeconds(20)).until(() -> inboxStatus(third).equals("DEFERRED"));
        assertThat(deferReason(third)).startsWith("waiting for push delivery-1");
        startProcessing("github", "delivery-2", second);
        await().atMost(Duration.ofSeconds(20)).until(() -> inboxStatus(second).equals("DEFERRED"));
        process("github", "delivery-1", first);
        result("github", "delivery-2");
        result("github", "delivery-3");

        assertThat(strings("SELECT source_event_id FROM outbox_events ORDER BY seq"))
                .containsExactly("delivery-1", "delivery-2", "delivery-3");
    }

    @Test
    void anUnroutedTypeOfAPartnerWithoutAStateMachineIsDeadLetteredSayingWhy() {
        UUID inboxId = receive("github", "delivery-1", "issues", "repository", REPO, "{}");

        process("github", "delivery-1", inboxId);

        assertThat(inboxStatus(inboxId)).isEqualTo("QUARANTINED");
        assertThat(strings("SELECT reason FROM dead_letters WHERE resolved_at IS NULL"))
                .containsExactly("no state machine is configured for aggregate type 'repository' and no route of"
                        + " partner 'github' matches event type 'issues'");
        assertThat(count("SELECT count(*) FROM outbox_events")).isZero();
    }

    @Test
    void aRoutedStripeTypeIsForwardedWhileTheOtherTypesDriveTheStateMachine() {
        UUID created = receive("stripe", "evt_1", "order.created", "order", "42", "{\"n\": 1}");
        UUID paid = receive("stripe", "evt_2", "order.paid", "order", "42", "{\"n\": 2}");
        UUID dispute = receive("stripe", "evt_3", "charge.dispute.created", "order", "42", "{\"n\": 3}");

        process("stripe", "evt_1", created);
        process("stripe", "evt_2", paid);
        process("stripe", "evt_3", dispute);

        assertThat(strings("SELECT state FROM entities WHERE aggregate_id = '42'"))
                .as("the dispute moved nothing")
                .containsExactly("paid");
        assertThat(strings("""
                SELECT event_type || ' ' || coalesce(array_to_string(target_endpoints, ','), 'subscribers')
                  FROM outbox_events ORDER BY seq"""))
                .as("the paid transition's emit fans out; the routed types go to the handler alone")
                .containsExactly(
                        "order.payment_confirmed subscribers", "order.paid handler", "charge.dispute.created handler");
        assertThat(count("SELECT count(*) FROM dead_letters")).isZero();
    }

    private void endpoint(String name, String path, List<String> eventTypes) {
        jdbi.useExtension(
                EndpointStore.class,
                store -> store.insert(name, receiver.url(path), WebhookSigner.newSecret(), eventTypes));
    }

    private UUID receive(
            String partner,
            String eventId,
            String eventType,
            String aggregateType,
            String aggregateId,
            String payload) {
        return jdbi.withExtension(
                        InboxIntake.class,
                        store -> store.receive(new InboxIntake.ReceivedEvent(
                                partner, eventId, eventType, aggregateType, aggregateId, payload)))
                .id();
    }

    private InboxEventWorkflow inboxWorkflow(String partner, String eventId) {
        return client.newWorkflowStub(
                InboxEventWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(InboxEventWorkflow.workflowId(partner, eventId))
                        .build());
    }

    private void process(String partner, String eventId, UUID inboxId) {
        inboxWorkflow(partner, eventId).process(inboxId, null);
    }

    private void startProcessing(String partner, String eventId, UUID inboxId) {
        WorkflowClient.start(inboxWorkflow(partner, eventId)::process, inboxId, null);
    }

    private void result(String partner, String eventId) {
        client.newUntypedWorkflowStub(InboxEventWorkflow.workflowId(partner, eventId))
                .getResult(Void.class);
    }

    private void deliver(UUID outboxId) {
        OutboxDeliveryWorkflow workflow = client.newWorkflowStub(
                OutboxDeliveryWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                        .build());
        WorkflowClient.start(workflow::deliver, outboxId, null);
        WorkflowStub.fromTyped(workflow).getResult(Void.class);
    }

    private String inboxRow(UUID inboxId) {
        return one("SELECT status || ' ' || outcome FROM webhook_inbox WHERE id = '" + inboxId + "'");
    }

    private String inboxStatus(UUID inboxId) {
        return one("SELECT status FROM webhook_inbox WHERE id = '" + inboxId + "'");
    }

    private String deferReason(UUID inboxId) {
        return one("SELECT defer_reason FROM webhook_inbox WHERE id = '" + inboxId + "'");
    }

    private String one(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(String.class).one());
    }

    private List<String> strings(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(String.class).list());
    }

    private int count(String sql) {
        return jdbi.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }
}
