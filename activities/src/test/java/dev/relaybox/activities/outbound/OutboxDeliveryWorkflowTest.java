package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.OutageTrigger;
import dev.relaybox.activities.TestDataSource;
import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.Visibility;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.activities.replay.RecordedHistories;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.Store;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.WorkflowVisibility;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** The delivery workflow with its real activities: real PostgreSQL, real HTTP, Temporal's clock skipped ahead. */
class OutboxDeliveryWorkflowTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String QUEUE = "outbound-test";
    static final Duration FIRST_ATTEMPT_HOLD = Duration.ofSeconds(3);
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)), 0, Duration.ofMinutes(10));

    Jdbi jdbi;
    TestReceiver receiver;
    TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        jdbi = TestDatabase.fresh();
        receiver = new TestReceiver();
        env = TestEngine.start(QUEUE, workers(jdbi));
    }

    private static RelayboxWorkers workers(Jdbi database) {
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(SCHEDULE)
                .withAllowedPrivateNetworks("127.0.0.0/8")
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5))
                // Beyond what a loaded build machine takes for an answer at once, which must stay in the task.
                .withFirstAttemptHold(FIRST_ATTEMPT_HOLD);
        return RelayboxWorkers.build(
                database,
                RelayboxWorkers.Settings.defaults().withDelivery(settings),
                DeadLetters.loggingOnly(),
                new SimpleMeterRegistry());
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void deliversFirstTimeSignedSoAnIndependentVerifierAccepts() throws Exception {
        String secret = endpoint("shop", "/hooks", "order.*");

        UUID outboxId = deliver("order.shipped", "{\"orderId\": 42}");

        List<TestReceiver.Received> requests = receiver.received("/hooks");
        assertThat(requests).hasSize(1);
        TestReceiver.Received request = requests.get(0);
        assertThat(request.header("webhook-id")).isEqualTo(outboxId.toString());
        assertThat(request.header("content-type")).isEqualTo("application/json");
        assertThat(request.header("user-agent")).startsWith("Relaybox/");
        // The Standard Webhooks envelope: the receiver can tell the event type and when it happened.
        JsonNode envelope = JSON.readTree(request.body());
        assertThat(envelope.path("type").asText()).isEqualTo("order.shipped");
        assertThat(Instant.parse(envelope.path("timestamp").asText())).isEqualTo(createdAt(outboxId));
        assertThat(envelope.path("data")).isEqualTo(JSON.readTree("{\"orderId\": 42}"));
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        request.header("webhook-id"),
                        request.header("webhook-timestamp"),
                        request.body(),
                        request.header("webhook-signature")))
                .isTrue();
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(processedAt(outboxId)).isNotNull();
    }

    @Test
    void aFirstTimeDeliveryIsOneWorkflowTaskAndUpsertsOnceAtTheEnd() {
        endpoint("shop", "/hooks", "order.*");

        UUID outboxId = deliver("order.shipped", "{}");

        List<HistoryEvent> events = env.getWorkflowClient()
                .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                .getEvents();
        // No activity task: the plan and the HTTP attempt, which settled with the controls and finished the row, ran
        // inside the one workflow task.
        assertThat(events.stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes))
                .isEmpty();
        assertThat(events.stream().filter(HistoryEvent::hasWorkflowTaskStartedEventAttributes))
                .hasSize(1);
        assertThat(events.stream()
                        .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                        .filter(e -> e.getMarkerRecordedEventAttributes()
                                .getMarkerName()
                                .equals("LocalActivity"))
                        .map(e -> e.getUserMetadata().getSummary().getData().toStringUtf8()))
                .as("plan once, no empty re-plan, the attempt; summaries for the timeline")
                .containsExactly("\"plan the deliveries\"", "\"attempt 1 to " + receiver.url("/…") + "\"");
        // Set at the start: what it is about, and pending. Delivered, with its endpoints, as it ends.
        assertThat(events.stream()
                        .filter(HistoryEvent::hasUpsertWorkflowSearchAttributesEventAttributes)
                        .map(e -> e.getUpsertWorkflowSearchAttributesEventAttributes()
                                .getSearchAttributes()
                                .getIndexedFieldsMap()
                                .keySet()))
                .singleElement()
                .satisfies(keys -> assertThat(keys)
                        .containsOnly(
                                RelaySearchAttributes.ENDPOINTS.getName(),
                                RelaySearchAttributes.STATUS.getName(),
                                RelaySearchAttributes.ATTEMPTS.getName()));
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(processedAt(outboxId)).isNotNull();
    }

    @Test
    void rawPayloadFormatSendsThePayloadAloneStillSigned() throws Exception {
        String secret = endpoint("legacy", "/legacy", "*");
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.setControlsByName(
                        "legacy", new EndpointControls(null, null, null, false, EndpointControls.RAW)));

        deliver("order.shipped", "{\"orderId\": 42}");

        TestReceiver.Received request = receiver.received("/legacy").get(0);
        assertThat(new String(request.body())).isEqualTo("{\"orderId\": 42}");
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        request.header("webhook-id"),
                        request.header("webhook-timestamp"),
                        request.body(),
                        request.header("webhook-signature")))
                .isTrue();
    }

    @Test
    void retriesServerErrorsThenSucceedsAfterOneAndFiveMinutes() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503), Reply.of(503), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(3);
        assertThat(attemptGaps(outboxId)).containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(5));
        assertThat(attemptStatuses(outboxId)).containsExactly(503, 503, 200);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void aReceiverSlowerThanTheFirstAttemptsHoldIsSentTheWebhookOnce() {
        endpoint("shop", "/hooks", "*");
        // Longer than the first attempt may hold its workflow task, within the request timeout.
        receiver.script("/hooks", Reply.of(200).after(FIRST_ATTEMPT_HOLD.plusSeconds(1)));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(attemptStatuses(outboxId)).as("one attempt, answered").containsExactly(200);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
    }

    @Test
    void anEventsFirstAttemptsGoOutTogetherAndOnlyASlowReceiverIsWaitedForApart() {
        endpoint("fast-a", "/a", "*");
        endpoint("fast-b", "/b", "*");
        endpoint("slow", "/slow", "*");
        receiver.script("/slow", Reply.of(200).after(FIRST_ATTEMPT_HOLD.plusSeconds(1)));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(List.of(receiver.received("/a"), receiver.received("/b"), receiver.received("/slow")))
                .as("each receiver sent the webhook once")
                .allSatisfy(requests -> assertThat(requests).hasSize(1));
        assertThat(deliveryStatuses(outboxId))
                .containsExactly("fast-a=DELIVERED", "fast-b=DELIVERED", "slow=DELIVERED");
        assertThat(processedAt(outboxId)).isNotNull();
        List<HistoryEvent> events = env.getWorkflowClient()
                .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                .getEvents();
        assertThat(events.stream()
                        .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                        .map(e -> e.getUserMetadata().getSummary().getData().toStringUtf8()))
                .as("one local activity for the three first attempts")
                .contains("\"first attempts to 3 endpoints\"")
                .noneMatch(summary -> summary.startsWith("\"attempt "));
        assertThat(events.stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes))
                .as("the slow receiver's answer, waited for on the worker whose request is in flight")
                .hasSize(1);
    }

    @Test
    void anEventDeliveredToEveryEndpointAtOnceIsFinishedByItsFirstAttempts() {
        endpoint("a", "/a", "*");
        endpoint("b", "/b", "*");

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(deliveryStatuses(outboxId)).containsExactly("a=DELIVERED", "b=DELIVERED");
        assertThat(processedAt(outboxId)).isNotNull();
        assertThat(
                        env
                                .getWorkflowClient()
                                .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .getEvents()
                                .stream()
                                .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
                                .map(e -> e.getUserMetadata()
                                        .getSummary()
                                        .getData()
                                        .toStringUtf8()))
                .as("the row finished by the joint first attempts, not by a step of its own")
                .containsExactly("\"plan the deliveries\"", "\"first attempts to 2 endpoints\"");
    }

    @Test
    void aRunStartedAfreshWhileTheFirstAttemptsRequestIsInFlightWaitsForItRatherThanSendingAgain() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(200).after(FIRST_ATTEMPT_HOLD.plusSeconds(1)));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        String workflowId = OutboxDeliveryWorkflow.workflowId(outboxId);
        OutboxDeliveryWorkflow first = env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(workflowId)
                                .build());
        WorkflowClient.start(first::deliver, outboxId, null);
        await().atMost(Duration.ofSeconds(20)).until(() -> receiver.requests() == 1);
        // The engine loses the run while the receiver is still answering; the reconciler starts another.
        env.getWorkflowClient().newUntypedWorkflowStub(workflowId).terminate("engine lost the run");

        run(outboxId);

        assertThat(receiver.requests()).as("requests taken, answered or not").isEqualTo(1);
        assertThat(attemptStatuses(outboxId)).containsExactly(200);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
    }

    @Test
    void runTakingOverMidScheduleWaitsForTheRecordedAttemptTimeAndContinuesTheCount() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503), Reply.of(200));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        // Two attempts made by a run the engine lost; the row says the third is due in 12 minutes.
        Instant recordedNext = Instant.ofEpochMilli(env.currentTimeMillis())
                .plus(Duration.ofMinutes(12))
                .truncatedTo(ChronoUnit.SECONDS);
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO deliveries (outbox_id, endpoint_id, status, attempts, next_attempt_at, last_status)
                        SELECT :outboxId, id, 'RETRYING', 2, :next, 503 FROM endpoints WHERE name = 'shop'""")
                .bind("outboxId", outboxId)
                .bind("next", recordedNext)
                .execute());

        run(outboxId);

        List<Instant> startedAt = jdbi.withHandle(h ->
                h.createQuery("""
                        SELECT a.started_at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                        WHERE d.outbox_id = :id ORDER BY a.attempt""").bind("id", outboxId).mapTo(Instant.class).list());
        List<Integer> numbers = jdbi.withHandle(h ->
                h.createQuery("""
                        SELECT a.attempt FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                        WHERE d.outbox_id = :id ORDER BY a.attempt""").bind("id", outboxId).mapTo(Integer.class).list());
        assertThat(numbers).containsExactly(3, 4);
        assertThat(startedAt.get(0))
                .as("attempt 3 not before the recorded time")
                .isAfterOrEqualTo(recordedNext);
        // Attempt 4 follows the schedule's third wait (15 minutes), counted from attempt 3.
        assertThat(attemptGaps(outboxId)).containsExactly(Duration.ofMinutes(15));
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void fourFailuresDeadLetterWithReasonAndAttempts() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(4);
        assertThat(attemptGaps(outboxId))
                .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15));
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
        Map<String, Object> deadLetter = jdbi.withHandle(
                h -> h.createQuery("SELECT source, reason, attempts FROM dead_letters WHERE resolved_at IS NULL")
                        .mapToMap()
                        .one());
        assertThat(deadLetter).containsEntry("source", "OUTBOX").containsEntry("attempts", 4);
        assertThat((String) deadLetter.get("reason")).contains("gave up after 4 attempts", "503");
        assertThat(processedAt(outboxId)).isNotNull();
    }

    @Test
    void searchAttributesAndDetailsFollowTheDeliveryFromRetryingToDeadLettered() throws Exception {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        String workflowId = OutboxDeliveryWorkflow.workflowId(outboxId);
        WorkflowClient client = env.getWorkflowClient();
        OutboxDeliveryWorkflow workflow = client.newWorkflowStub(
                OutboxDeliveryWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(workflowId)
                        .setTypedSearchAttributes(
                                WorkflowVisibility.atStart("outbound", "pending", "order.paid", "order:42", null))
                        .build());
        WorkflowClient.start(workflow::deliver, outboxId, null);

        // Nobody waits on the result yet, so Temporal's clock stays put and the first backoff holds.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "retrying".equals(Visibility.attribute(client, workflowId, RelaySearchAttributes.STATUS)));
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.DIRECTION))
                .isEqualTo("outbound");
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.EVENT_TYPE))
                .isEqualTo("order.paid");
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.AGGREGATE))
                .isEqualTo("order:42");
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.ENDPOINTS))
                .containsExactly("shop");
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.PEER))
                .isNull();
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.ATTEMPTS))
                .isEqualTo(1L);
        assertThat(Visibility.currentDetails(client, workflowId))
                .matches("shop: attempt 1 failed: 503 Service Unavailable; next attempt \\S+Z");
        assertThat(workflow.status().deliveries())
                .singleElement()
                .satisfies(d -> assertThat(d.status()).isEqualTo("retrying"));

        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.STATUS))
                .isEqualTo("dead_lettered");
        assertThat(Visibility.attribute(client, workflowId, RelaySearchAttributes.ATTEMPTS))
                .isEqualTo(4L);
        WorkflowExecutionHistory history = client.fetchHistory(workflowId);
        assertThat(history.getEvents())
                .filteredOn(e -> e.hasTimerStartedEventAttributes())
                .hasSize(3);
        // The recorded history replays against today's code: a change that breaks running workflows fails here.
        WorkflowReplayer.replayWorkflowExecution(history, OutboxDeliveryWorkflowImpl.class);
    }

    @Test
    void anEndpointsPathAndQueryNeverReachTheHistory() {
        // Receivers put capabilities in the path or query; whoever reads the Temporal UI must not learn them.
        endpoint("shop", "/hooks/T0K3N?key=s3cr3t-capability", "*");
        receiver.script("/hooks/T0K3N", Reply.of(503), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        String history = readable(env.getWorkflowClient()
                .fetchHistory(OutboxDeliveryWorkflow.workflowId(outboxId))
                .toJson(false));
        assertThat(history).contains("127.0.0.1").doesNotContain("T0K3N", "s3cr3t-capability");
    }

    /** The history as JSON with every payload (base64 there) decoded beside it, as the Temporal UI shows them. */
    private static String readable(String historyJson) {
        StringBuilder text = new StringBuilder(historyJson);
        Matcher data = Pattern.compile("\"data\": ?\"([A-Za-z0-9+/=]*)\"").matcher(historyJson);
        while (data.find()) {
            text.append('\n').append(new String(Base64.getDecoder().decode(data.group(1)), StandardCharsets.UTF_8));
        }
        return text.toString();
    }

    @Test
    void retryAfterIsHonouredInsteadOfTheSchedule() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.retryAfter(429, "120"), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(attemptGaps(outboxId)).containsExactly(Duration.ofSeconds(120));
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
    }

    @Test
    void goneDisablesTheEndpointAndDeadLetters() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(410));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
        Map<String, Object> endpoint =
                jdbi.withHandle(h -> h.createQuery("SELECT enabled, disabled_reason FROM endpoints WHERE name = 'shop'")
                        .mapToMap()
                        .one());
        assertThat(endpoint.get("enabled")).isEqualTo(false);
        assertThat((String) endpoint.get("disabled_reason")).contains("410 Gone");
        assertThat(openDeadLetters()).isEqualTo(1);
    }

    @Test
    void nulByteInASuccessfulAnswerIsDeliveredOnceWithACleanExcerpt() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", new Reply(200, Map.of(), "accepted\u0000 by \ud800 us", Duration.ZERO));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(openDeadLetters()).isZero();
        String excerpt = jdbi.withHandle(h -> h.createQuery("SELECT response_excerpt FROM delivery_attempts")
                .mapTo(String.class)
                .one());
        assertThat(excerpt).startsWith("accepted").endsWith("us").doesNotContain("\u0000");
    }

    @Test
    void successStaysRecordedWhenItsAttemptDetailsCannotBeWritten() {
        endpoint("shop", "/hooks", "*");
        // Any failure to write the attempt's details (here: a constraint no row can meet) is only bookkeeping.
        jdbi.useHandle(h -> h.execute(
                "ALTER TABLE delivery_attempts ADD CONSTRAINT refuse_every_row CHECK (latency_ms < 0) NOT VALID"));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void relayboxAlertsGoOnlyToTheAlertEndpointNeverToSubscribersOfEverything() {
        endpoint("customer", "/customer", "*");
        endpoint("customer-relaybox", "/customer-relaybox", "relaybox.*");
        endpoint(JdbcOutbox.ALERT_ENDPOINT, "/alerts", "relaybox.dead_letter.created");
        // Inserted as any application sharing the database may: the path a forged alert would take.
        UUID outboxId =
                jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                        VALUES ('dead_letter', 'x', 'relaybox.dead_letter.created', '{"peer": "https://other.example"}')
                        RETURNING id""").mapTo(UUID.class).one());

        run(outboxId);

        assertThat(receiver.received("/alerts")).hasSize(1);
        assertThat(receiver.received("/customer")).isEmpty();
        assertThat(receiver.received("/customer-relaybox")).isEmpty();
        assertThat(deliveryStatuses(outboxId)).containsExactly(JdbcOutbox.ALERT_ENDPOINT + "=DELIVERED");
    }

    @Test
    void enqueueRefusesRelayboxEventTypes() {
        assertThatThrownBy(() -> jdbi.useTransaction(
                        h -> Outbox.enqueue(h, new OutboxEvent("relaybox.dead_letter.created", "order", "1", "{}"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relaybox.");
        assertThatThrownBy(() -> jdbi.useTransaction(h ->
                        Outbox.enqueueIdempotent(h, new OutboxEvent("relaybox.other", "order", "1", "{}"), "k", "h")))
                .isInstanceOf(IllegalArgumentException.class);
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events")
                .mapTo(int.class)
                .one());
        assertThat(rows).isZero();
    }

    @Test
    void deliveryWhoseEndpointIsDisabledMidScheduleIsPausedNotDeadLettered() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        OutboxDeliveryWorkflow workflow = started(outboxId);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> deliveryStatuses(outboxId).contains("shop=RETRYING"));

        jdbi.useExtension(
                EndpointStore.class, dao -> dao.setEnabled(dao.list().get(0).id(), false, "maintenance"));
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=PAUSED");
        assertThat(openDeadLetters()).isZero();
        assertThat(processedAt(outboxId)).isNotNull();
    }

    @Test
    void clientErrorDeadLettersAtOnce() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(400));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/hooks")).hasSize(1);
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
        assertThat(openDeadLetters()).isEqualTo(1);
    }

    @Test
    void redirectIsAFailureAndIsNotFollowed() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", new Reply(301, Map.of("Location", receiver.url("/elsewhere")), "", Duration.ZERO));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/elsewhere")).isEmpty();
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
    }

    @Test
    void oneFailingEndpointDoesNotHoldBackAnother() {
        endpoint("broken", "/broken", "*");
        endpoint("healthy", "/healthy", "*");
        receiver.script("/broken", Reply.of(500));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/healthy")).hasSize(1);
        assertThat(receiver.received("/broken")).hasSize(4);
        assertThat(deliveryStatuses(outboxId)).containsExactly("broken=DEAD_LETTERED", "healthy=DELIVERED");
        Instant healthyAt =
                jdbi.withHandle(h -> h.createQuery("""
                SELECT a.started_at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                JOIN endpoints e ON e.id = d.endpoint_id WHERE e.name = 'healthy'""").mapTo(Instant.class).one());
        Instant brokenFirst =
                jdbi.withHandle(h -> h.createQuery("""
                SELECT min(a.started_at) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                JOIN endpoints e ON e.id = d.endpoint_id WHERE e.name = 'broken'""").mapTo(Instant.class).one());
        assertThat(Duration.between(brokenFirst, healthyAt)).isLessThan(Duration.ofMinutes(1));
    }

    @Test
    void endpointsNotSubscribedToTheEventTypeGetNothing() {
        endpoint("orders", "/orders", "order.*");
        endpoint("payments", "/payments", "payment.captured");

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(receiver.received("/payments")).isEmpty();
        assertThat(deliveryStatuses(outboxId)).containsExactly("orders=DELIVERED");
    }

    @Test
    void rotatedSecretSignsWithBothUntilGraceEnds() throws Exception {
        String oldSecret = endpoint("shop", "/hooks", "*");
        String newSecret = WebhookSigner.newSecret();
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.rotateSecret(
                        dao.list().get(0).id(), newSecret, Instant.now().plus(Duration.ofDays(1))));

        deliver("order.paid", "{}");

        TestReceiver.Received request = receiver.received("/hooks").get(0);
        for (String secret : List.of(oldSecret, newSecret)) {
            assertThat(StandardWebhooksVerifier.verify(
                            secret,
                            request.header("webhook-id"),
                            request.header("webhook-timestamp"),
                            request.body(),
                            request.header("webhook-signature")))
                    .as("signed with %s", secret)
                    .isTrue();
        }
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDeliveredFirstTime() {
        endpoint("shop", "/hooks", "*");

        UUID outboxId = deliver("order.paid", "{\"orderId\": 42}");

        assertThat(attemptStatuses(outboxId)).containsExactly(200);
        record(outboxId, "outbound-delivered-first-time.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordFirstAttemptsToSeveralEndpoints() {
        endpoint("fast", "/fast", "*");
        endpoint("slow", "/slow", "*");
        receiver.script("/slow", Reply.of(200).after(FIRST_ATTEMPT_HOLD.plusSeconds(1)));

        UUID outboxId = deliver("order.paid", "{\"orderId\": 42}");

        assertThat(deliveryStatuses(outboxId)).containsExactly("fast=DELIVERED", "slow=DELIVERED");
        record(outboxId, "outbound-first-attempts-to-several-endpoints.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordRetriedThenDelivered() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503), Reply.of(503), Reply.of(503), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{\"orderId\": 42}");

        assertThat(attemptStatuses(outboxId)).containsExactly(503, 503, 503, 200);
        record(outboxId, "outbound-retried-then-delivered.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordRetryNowCutABackoffShort() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503), Reply.of(503), Reply.of(200));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        OutboxDeliveryWorkflow workflow = started(outboxId);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "retrying".equals(workflow.status().status()));

        // The minute's wait cut short; the second failure's five minutes outlast it.
        workflow.retryNow();
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(attemptStatuses(outboxId)).containsExactly(503, 503, 200);
        record(outboxId, "outbound-retry-now-cut-a-backoff-short.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordRetryAfterHonoured() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.retryAfter(429, "120"), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(attemptGaps(outboxId)).containsExactly(Duration.ofSeconds(120));
        record(outboxId, "outbound-retry-after-honoured.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDeadLetteredAfterTheSchedule() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
        assertThat(attemptStatuses(outboxId)).containsExactly(503, 503, 503, 503);
        record(outboxId, "outbound-dead-lettered-after-the-schedule.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordGone() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(410));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");
        record(outboxId, "outbound-gone.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordReplayOfADeadLetter() {
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(400), Reply.of(200));
        UUID outboxId = deliver("order.paid", "{}");
        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DEAD_LETTERED");

        OutboundHarness.replay(env.getWorkflowClient(), jdbi, QUEUE, outboxId);

        assertThat(deliveryStatuses(outboxId)).containsExactly("shop=DELIVERED");
        record(outboxId, "outbound-replayed-dead-letter.json");
    }

    @Test
    @EnabledIfSystemProperty(named = RecordedHistories.RECORD_INTO, matches = ".+")
    void recordDatabaseOutageWaitedOut() {
        // The workers reach the database through a data source that refuses connections on cue: for more than a
        // round of retries of recording the retry, and again as the next attempt asks the endpoint's controls.
        env.close();
        DataSource database = TestDatabase.freshDataSource();
        jdbi = Store.configure(Jdbi.create(database), TestDatabase.SECRETS);
        TestDataSource refusing = new TestDataSource(database);
        OutageTrigger recordingTheRetry = new OutageTrigger(() -> refusing.outage(0, 12));
        recordingTheRetry.at(DeliveryActivities.class, "scheduleRetry", 1);
        OutageTrigger askingTheControls = new OutageTrigger(() -> refusing.outage(0, 5));
        askingTheControls.at(EndpointControlActivities.class, "admit", 1);
        RelayboxWorkers workers = workers(Store.configure(Jdbi.create(refusing), TestDatabase.SECRETS));
        env = TestEngine.start(
                QUEUE,
                new RelayboxWorkers(
                        recordingTheRetry.wrap(DeliveryActivities.class, workers.delivery()),
                        askingTheControls.wrap(EndpointControlActivities.class, workers.controls()),
                        workers.inbox()));
        endpoint("shop", "/hooks", "*");
        receiver.script("/hooks", Reply.of(503), Reply.of(200));

        UUID outboxId = deliver("order.paid", "{}");

        assertThat(attemptStatuses(outboxId)).containsExactly(503, 200);
        assertThat(refusing.refused()).isEqualTo(17);
        record(outboxId, "outbound-database-outage-waited-out.json");
    }

    /** Its delivery workflow, started without waiting for it: the test's clock stays put until something waits. */
    private OutboxDeliveryWorkflow started(UUID outboxId) {
        OutboxDeliveryWorkflow workflow = env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build());
        WorkflowClient.start(workflow::deliver, outboxId, null);
        return workflow;
    }

    private void record(UUID outboxId, String fileName) {
        RecordedHistories.save(env.getWorkflowClient(), OutboxDeliveryWorkflow.workflowId(outboxId), fileName);
    }

    private String endpoint(String name, String path, String eventTypes) {
        String secret = WebhookSigner.newSecret();
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.insert(name, receiver.url(path), secret, List.of(eventTypes.split(","))));
        return secret;
    }

    private UUID deliver(String eventType, String payload) {
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent(eventType, "order", "42", payload)));
        run(outboxId);
        return outboxId;
    }

    private void run(UUID outboxId) {
        WorkflowStub.fromTyped(started(outboxId)).getResult(Void.class);
    }

    private List<String> deliveryStatuses(UUID outboxId) {
        return jdbi.withHandle(
                h -> h.createQuery("""
                        SELECT e.name || '=' || d.status FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
                        WHERE d.outbox_id = :id ORDER BY e.name""").bind("id", outboxId).mapTo(String.class).list());
    }

    private List<Integer> attemptStatuses(UUID outboxId) {
        return jdbi.withHandle(h ->
                h.createQuery("""
                        SELECT a.status_code FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                        WHERE d.outbox_id = :id ORDER BY a.attempt""").bind("id", outboxId).mapTo(Integer.class).list());
    }

    private List<Duration> attemptGaps(UUID outboxId) {
        List<Instant> times = jdbi.withHandle(h ->
                h.createQuery("""
                        SELECT a.started_at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                        WHERE d.outbox_id = :id ORDER BY a.attempt""").bind("id", outboxId).mapTo(Instant.class).list());
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < times.size(); i++) {
            // Whole minutes (every scheduled wait here is one): the gap also holds the previous attempt's own real
            // latency and the endpoint controls' bookkeeping, seconds on a loaded machine.
            gaps.add(Duration.ofMinutes(
                    Duration.between(times.get(i - 1), times.get(i)).toMinutes()));
        }
        return gaps;
    }

    private Instant createdAt(UUID outboxId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT created_at FROM outbox_events WHERE id = :id")
                .bind("id", outboxId)
                .mapTo(Instant.class)
                .one());
    }

    private Instant processedAt(UUID outboxId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT processed_at FROM outbox_events WHERE id = :id")
                .bind("id", outboxId)
                .mapTo(Instant.class)
                .one());
    }

    private int openDeadLetters() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL")
                .mapTo(int.class)
                .one());
    }
}
