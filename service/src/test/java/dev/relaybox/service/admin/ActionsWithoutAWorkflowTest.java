package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.RelayboxTestEngine;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.service.dispatch.Dispatcher;
import dev.relaybox.service.dispatch.InboxDispatchSource;
import dev.relaybox.service.dispatch.OutboxDispatchSource;
import dev.relaybox.service.dispatch.WorkflowStarter;
import dev.relaybox.service.recovery.ImmediateRetry;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.InboxIntake;
import dev.relaybox.store.InboxQueries;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import io.temporal.testing.TestWorkflowEnvironment;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retry-now and release from the admin API when the row's workflow is gone (terminated here; after the engine restarted
 * empty or lost its state the API sees the same: no running workflow). The operator's action still takes effect at
 * once, through a fresh run that resumes from the row, and is answered as it is when the workflow runs. Real
 * PostgreSQL, Temporal's test server, a real receiver; the resources in Jersey's in-memory container.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ActionsWithoutAWorkflowTest {
    static final String QUEUE = "admin-actions-test";
    /** Attempt 2 would come an hour after attempt 1, a deferred event would recheck hourly: the test never waits them. */
    static final Duration BACKOFF = Duration.ofHours(1);

    static final Jdbi JDBI = TestDatabase.fresh();
    static final TestReceiver RECEIVER = new TestReceiver();
    static final TestWorkflowEnvironment ENV = RelayboxTestEngine.start(JDBI, QUEUE, BACKOFF, Duration.ofHours(24));
    static final OutboxDispatchSource OUTBOX =
            new OutboxDispatchSource(new WorkflowStarter(ENV.getWorkflowClient(), QUEUE));
    static final InboxDispatchSource INBOX =
            new InboxDispatchSource(new WorkflowStarter(ENV.getWorkflowClient(), QUEUE));
    static final Dispatcher DISPATCHER =
            new Dispatcher(JDBI, List.of(OUTBOX, INBOX), new DispatcherFactory(), DeadLetters.loggingOnly());
    static final ImmediateRetry IMMEDIATE_RETRY = new ImmediateRetry(JDBI, ENV.getWorkflowClient(), OUTBOX, INBOX);
    static final TemporalLinks LINKS = new TemporalLinks("http://localhost:8233", "default", true);
    static final ResourceExtension RESOURCE = ResourceExtension.builder()
            .setRegisterDefaultExceptionMappers(false)
            .addProvider((Feature) context -> {
                JsonErrorMappers.register(context);
                return true;
            })
            .addResource(new AdminDeliveriesResource(JDBI, IMMEDIATE_RETRY, LINKS))
            .addResource(new AdminInboxResource(JDBI.onDemand(InboxQueries.class), IMMEDIATE_RETRY, LINKS))
            .build();

    @AfterAll
    static void stop() {
        ENV.close();
        RECEIVER.close();
    }

    @Test
    void retryNowDeliversAtOnceWhenTheDeliveryWorkflowIsGone() {
        UUID deliveryId = deliveryBackingOff("gone");
        UUID outboxId = outboxIdOf(deliveryId);
        ENV.getWorkflowClient()
                .newUntypedWorkflowStub(OutboxDeliveryWorkflow.workflowId(outboxId))
                .terminate("the engine lost its state");

        Response answer = post("/admin/deliveries/" + deliveryId + "/retry-now");

        assertThat(answer.getStatus()).isEqualTo(200);
        JsonNode body = answer.readEntity(JsonNode.class);
        assertThat(body.path("status").asText()).isEqualTo("restarted");
        assertThat(body.path("workflowId").asText()).isEqualTo(OutboxDeliveryWorkflow.workflowId(outboxId));
        awaitDelivered(deliveryId);
        assertThat(RECEIVER.received("/gone")).hasSize(2);
        assertThat(attemptNumbers(deliveryId)).as("the attempt count continues").containsExactly(1, 2);
    }

    @Test
    void retryNowSignalsARunningDeliveryWorkflowWithTheSameAnswer() {
        UUID deliveryId = deliveryBackingOff("running");
        UUID outboxId = outboxIdOf(deliveryId);

        Response answer = post("/admin/deliveries/" + deliveryId + "/retry-now");

        assertThat(answer.getStatus()).isEqualTo(200);
        JsonNode body = answer.readEntity(JsonNode.class);
        assertThat(body.path("status").asText()).isEqualTo("signalled");
        assertThat(body.path("workflowId").asText()).isEqualTo(OutboxDeliveryWorkflow.workflowId(outboxId));
        awaitDelivered(deliveryId);
        assertThat(RECEIVER.received("/running")).hasSize(2);
        assertThat(attemptNumbers(deliveryId)).containsExactly(1, 2);
    }

    @Test
    void releaseAppliesADeferredEventWhoseWorkflowIsGone() {
        UUID inboxId = deferredEvent("evt-gone", "order-gone");
        ENV.getWorkflowClient()
                .newUntypedWorkflowStub(InboxEventWorkflow.workflowIdOf(null, "shop", "evt-gone"))
                .terminate("the engine lost its state");
        // An operator creates the order by hand; nothing signals the deferred payment.
        JDBI.useHandle(
                h -> h.execute(
                        "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', 'order-gone', 'created', 1)"));

        Response answer = post("/admin/inbox/" + inboxId + "/release");

        assertThat(answer.getStatus()).isEqualTo(200);
        JsonNode body = answer.readEntity(JsonNode.class);
        assertThat(body.path("status").asText()).isEqualTo("restarted");
        assertThat(body.path("workflowId").asText())
                .isEqualTo(InboxEventWorkflow.workflowIdOf(null, "shop", "evt-gone"));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "paid".equals(text("SELECT state FROM entities WHERE aggregate_id = 'order-gone'")));
        assertThat(text("SELECT status FROM webhook_inbox WHERE id = '" + inboxId + "'"))
                .isEqualTo("PROCESSED");
    }

    @Test
    void refusalsKeepTheOneErrorShapeAndChangeNothing() {
        UUID delivered = deliveryBackingOff("refused");
        post("/admin/deliveries/" + delivered + "/retry-now");
        awaitDelivered(delivered);
        UUID deferred = deferredEvent("evt-refused", "order-refused");
        JDBI.useHandle(
                h -> h.execute(
                        "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', 'order-refused', 'created', 1)"));
        post("/admin/inbox/" + deferred + "/release");
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        "PROCESSED".equals(text("SELECT status FROM webhook_inbox WHERE id = '" + deferred + "'")));

        String recheckBefore = text("SELECT next_recheck_at::text FROM webhook_inbox WHERE id = '" + deferred + "'");

        assertError(post("/admin/deliveries/" + delivered + "/retry-now"), 409, "not_retrying");
        assertError(post("/admin/deliveries/" + UUID.randomUUID() + "/retry-now"), 404, "delivery_not_found");
        assertError(post("/admin/inbox/" + deferred + "/release"), 409, "not_deferred");
        assertError(post("/admin/inbox/" + UUID.randomUUID() + "/release"), 404, "inbox_event_not_found");
        assertThat(text("SELECT next_attempt_at::text FROM deliveries WHERE id = '" + delivered + "'"))
                .isNull();
        assertThat(text("SELECT next_recheck_at::text FROM webhook_inbox WHERE id = '" + deferred + "'"))
                .as("a processed event is not made due")
                .isEqualTo(recheckBefore);
        assertThat(RECEIVER.received("/refused")).hasSize(2);
    }

    /** A delivery whose attempt 1 failed, waiting an hour for attempt 2, to a receiver that accepts it from then on. */
    private static UUID deliveryBackingOff(String name) {
        RECEIVER.script("/" + name, TestReceiver.Reply.of(503), TestReceiver.Reply.of(200));
        JDBI.useExtension(
                EndpointStore.class,
                store -> store.insert(
                        name, RECEIVER.url("/" + name), WebhookSigner.newSecret(), List.of(name + ".happened")));
        UUID outboxId =
                JDBI.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent(name + ".happened", "order", name, "{}")));
        DISPATCHER.dispatchAll();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "RETRYING"
                        .equals(text("SELECT status FROM deliveries WHERE next_attempt_at IS NOT NULL AND outbox_id = '"
                                + outboxId + "'")));
        return UUID.fromString(text("SELECT id::text FROM deliveries WHERE outbox_id = '" + outboxId + "'"));
    }

    /** An {@code order.paid} for an order that does not exist yet: deferred, rechecked hourly. */
    private static UUID deferredEvent(String eventId, String orderId) {
        UUID id = JDBI.onDemand(InboxIntake.class)
                .receive(new InboxIntake.ReceivedEvent("shop", eventId, "order.paid", "order", orderId, "{}"))
                .id();
        DISPATCHER.dispatchAll();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "DEFERRED".equals(text("SELECT status FROM webhook_inbox WHERE id = '" + id + "'")));
        return id;
    }

    private static void awaitDelivered(UUID deliveryId) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "DELIVERED".equals(text("SELECT status FROM deliveries WHERE id = '" + deliveryId + "'")));
    }

    private static UUID outboxIdOf(UUID deliveryId) {
        return UUID.fromString(text("SELECT outbox_id::text FROM deliveries WHERE id = '" + deliveryId + "'"));
    }

    private static List<Integer> attemptNumbers(UUID deliveryId) {
        return JDBI.withHandle(
                h -> h.createQuery("SELECT attempt FROM delivery_attempts WHERE delivery_id = :id ORDER BY attempt")
                        .bind("id", deliveryId)
                        .mapTo(Integer.class)
                        .list());
    }

    private static String text(String sql) {
        return JDBI.withHandle(
                h -> h.createQuery(sql).mapTo(String.class).findOne().orElse(null));
    }

    private static Response post(String path) {
        return RESOURCE.target(path).request().post(Entity.json("{}"));
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.getStatus()).isEqualTo(status);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("error").asText()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }
}
