package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxOnRealTemporal;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.VisibilityLimits;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The biggest things Relaybox accepts, run on the real Temporal server with its default limits, which the SDK's test
 * server does not check: a search attribute value (2 KiB) and all of them (40 KiB), a Keyword's VARCHAR(255) on SQL
 * visibility, blobs (2 MiB), pending activities (2,000), history length (51,200 events). None may fail a workflow
 * task or a start. The server suggests continuing as new after 40 events instead of 4,096 (a suggestion, not a
 * limit), so that a long deferral continues as new within seconds.
 */
class ServerLimitsTest {
    private static final TestReceiver RECEIVER = new TestReceiver();
    private static final long MAX_BODY = 256 * 1024;
    private static RelayboxOnRealTemporal relaybox;
    private static WorkflowClient client;

    @BeforeAll
    static void start() {
        relaybox = RelayboxOnRealTemporal.start(
                "limits",
                options -> options.withDynamicConfig("limit.historyCount.suggestContinueAsNew=40"),
                Map.of("delivery.retryDelays", "1h", "inbox.recheckInterval", "200ms", "inbox.maxDeferral", "1h"));
        client = relaybox.client();
    }

    @AfterAll
    static void stop() {
        if (relaybox != null) {
            relaybox.close();
        }
        RECEIVER.close();
    }

    @Test
    void aFanOutTo200EndpointsStaysFarBelowThePendingActivityAndHistoryLimits() {
        IntStream.range(0, 200).forEach(i -> endpoint(String.format("fan-%03d", i), "/fan/" + i, "fanout.*"));

        String workflowId = outbound("fanout.sent", "campaign", "7", Map.of("campaign", 7));

        await().atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(RECEIVER.received().stream()
                                .filter(r -> r.path().startsWith("/fan/"))
                                .count())
                        .as("requests to the 200 endpoints; deliveries %s", deliveryStatuses())
                        .isEqualTo(200));
        await().atMost(Duration.ofSeconds(30)).until(() -> closed(workflowId));
        List<HistoryEvent> history = history(workflowId);
        assertThat(refusedByTheServer(history)).isEmpty();
        assertThat(history).hasSizeLessThan(51_200);
        assertThat(mostPendingActivities(history))
                .isLessThanOrEqualTo(OutboxDeliveryWorkflowImpl.MAX_ATTEMPTS_IN_FLIGHT);
        List<String> endpoints = attribute(workflowId, RelaySearchAttributes.ENDPOINTS);
        assertThat(endpoints).hasSize(VisibilityLimits.MAX_ENDPOINT_NAMES + 1).endsWith("+150 more");
        assertThat(status(workflowId)).isEqualTo("delivered");
        // The visibility store indexed the list: a name in it finds the event, one left out does not.
        awaitFound("RelayEndpoints=\"fan-000\" AND RelayStatus=\"delivered\"", workflowId);
        assertThat(find("RelayEndpoints=\"fan-199\"")).isEmpty();
    }

    @Test
    void theLongestOutboundFieldsAreShownCutToWhatEveryVisibilityStoreTakes() {
        // The API's limits: event type 200 characters, aggregate type 100, aggregate id 200 (any characters).
        String eventType = "e" + "x".repeat(199);
        endpoint("long-fields", "/long", eventType);
        // 200 UTF-16 characters of 3 UTF-8 bytes each: the most bytes an aggregate id can have.
        String longest = outbound(eventType, "t".repeat(100), "€".repeat(200), Map.of("n", 1));
        // type:id of exactly 256 characters: a value just over a Keyword column, not long enough to be cut at 256.
        String aggregateType = "a".repeat(55);
        String aggregateId = "i".repeat(200);
        String exact = outbound(eventType, aggregateType, aggregateId, Map.of("n", 2));

        await().atMost(Duration.ofSeconds(30)).until(() -> closed(longest) && closed(exact));
        for (String workflowId : List.of(longest, exact)) {
            assertThat(refusedByTheServer(history(workflowId))).isEmpty();
            assertThat(status(workflowId)).isEqualTo("delivered");
            String aggregate = attribute(workflowId, RelaySearchAttributes.AGGREGATE);
            assertThat(aggregate.codePointCount(0, aggregate.length())).isLessThanOrEqualTo(255);
            assertThat(encodedBytes(aggregate)).isLessThan(2048);
        }
        assertThat(attribute(exact, RelaySearchAttributes.AGGREGATE))
                .isEqualTo(VisibilityLimits.keyword(aggregateType + ":" + aggregateId))
                .endsWith("…");
        // What visibility stored is what the workflow shows: the cut value finds it.
        awaitFound(
                "RelayAggregate=\"" + attribute(exact, RelaySearchAttributes.AGGREGATE) + "\" AND RelayEventType=\""
                        + eventType + "\"",
                exact);
    }

    @Test
    void anInboundEventWithAHugeTypeAndAggregateIsDeadLetteredNotStuck() {
        // The intake bounds the event id (500 characters) and the body, not the type or aggregate inside it.
        String eventId = "evt-" + "9".repeat(496);
        String type = "order." + "y".repeat(20_000);
        String orderId = "ü".repeat(20_000);
        Answer answer = relaybox.orderEvent("shop", eventId, type, orderId);
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(200);
        String workflowId = InboxEventWorkflow.workflowId("shop", eventId);
        assertThat(workflowId).hasSizeLessThanOrEqualTo(InboxEventWorkflow.MAX_WORKFLOW_ID_LENGTH);

        await().atMost(Duration.ofSeconds(30)).until(() -> closed(workflowId));
        assertThat(refusedByTheServer(history(workflowId))).isEmpty();
        assertThat(status(workflowId)).isEqualTo("dead_lettered");
        assertThat(VisibilityLimits.utf8Bytes(attribute(workflowId, RelaySearchAttributes.EVENT_TYPE)))
                .isLessThanOrEqualTo(255);
        assertThat(VisibilityLimits.utf8Bytes(attribute(workflowId, RelaySearchAttributes.AGGREGATE)))
                .isLessThanOrEqualTo(255);
    }

    @Test
    void bodiesUpToTheLimitsFlowWholeAndOneByteMoreIsRefused() {
        endpoint("bulk", "/bulk", "bulk.*");
        String outboundUnder = outboxBody(MAX_BODY);
        Answer accepted = relaybox.producer("POST", "/outbox", outboundUnder);
        assertThat(accepted.status()).isEqualTo(202);
        relaybox.producer("POST", "/outbox", outboxBody(MAX_BODY + 1)).assertError(413, "payload_too_large");

        String inboundUnder = webhookBody("71", MAX_BODY);
        assertThat(relaybox.webhook("shop", "evt-big-71", inboundUnder).status())
                .isEqualTo(200);
        relaybox.webhook("shop", "evt-big-72", webhookBody("72", MAX_BODY + 1)).assertError(413, "payload_too_large");

        String outboundId = OutboxDeliveryWorkflow.workflowId(UUID.fromString(accepted.text("id")));
        String inboundId = InboxEventWorkflow.workflowId("shop", "evt-big-71");
        await().atMost(Duration.ofSeconds(30)).until(() -> closed(outboundId) && closed(inboundId));
        assertThat(status(outboundId)).isEqualTo("delivered");
        assertThat(status(inboundId)).isEqualTo("processed");
        assertThat(refusedByTheServer(history(outboundId))).isEmpty();
        assertThat(refusedByTheServer(history(inboundId))).isEmpty();
        // The receiver got the payload whole: the workflow carries ids, the activity reads the row.
        assertThat(RECEIVER.received("/bulk"))
                .singleElement()
                .satisfies(r -> assertThat(r.body().length).isGreaterThan((int) MAX_BODY - 1024));
    }

    @Test
    void aLongDeferralContinuesAsNewAndStaysFindableUntilReleased() {
        String eventId = "evt-long-deferral";
        assertThat(relaybox.orderEvent("shop", eventId, "order.paid", "80").status())
                .isEqualTo(200);
        String workflowId = InboxEventWorkflow.workflowId("shop", eventId);

        // Rechecks every 200ms: past 40 events the server suggests continuing as new, and the workflow does.
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> find("WorkflowId=\"" + workflowId + "\" AND ExecutionStatus=\"ContinuedAsNew\"")
                                .size()
                        >= 2);
        awaitFound(
                "RelayStatus=\"deferred\" AND RelayAggregate=\"order:80\" AND ExecutionStatus=\"Running\"", workflowId);

        assertThat(relaybox.orderEvent("shop", "evt-created-80", "order.created", "80")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> closed(workflowId));
        assertThat(status(workflowId)).isEqualTo("processed");
        for (WorkflowExecutionMetadata run : find("WorkflowId=\"" + workflowId + "\"")) {
            List<HistoryEvent> history = client.fetchHistory(
                            workflowId, run.getExecution().getRunId())
                    .getEvents();
            assertThat(refusedByTheServer(history)).isEmpty();
            assertThat(history).hasSizeLessThan(200);
        }
    }

    private static final Set<WorkflowTaskFailedCause> RETRIED_TASK_FAILURES = Set.of(
            WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
            WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND);

    /**
     * What the server refused or ended: a workflow task it failed (bad search attributes, too many pending activities,
     * a blob over its size...) or a workflow it failed or terminated (history over its limits). A task the worker
     * failed itself (a deadlock detected on a loaded machine) is retried and is no such refusal; nor is a task that
     * closed the run while a signal came in (an unhandled command: the task is made again with the signal).
     */
    static List<HistoryEvent> refusedByTheServer(List<HistoryEvent> history) {
        return history.stream()
                .filter(e -> (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
                                && !RETRIED_TASK_FAILURES.contains(
                                        e.getWorkflowTaskFailedEventAttributes().getCause()))
                        || e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED
                        || e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED)
                .toList();
    }

    private static List<HistoryEvent> history(String workflowId) {
        return client.fetchHistory(workflowId).getEvents();
    }

    /** The most activities scheduled and not yet closed at any point of the history. */
    private static int mostPendingActivities(List<HistoryEvent> history) {
        int pending = 0;
        int most = 0;
        for (HistoryEvent event : history) {
            switch (event.getEventType()) {
                case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> most = Math.max(most, ++pending);
                case EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
                        EVENT_TYPE_ACTIVITY_TASK_FAILED,
                        EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
                        EVENT_TYPE_ACTIVITY_TASK_CANCELED -> pending--;
                default -> {}
            }
        }
        return most;
    }

    /** Started and no longer running. */
    private static boolean closed(String workflowId) {
        try {
            return client.newUntypedWorkflowStub(workflowId).describe().getStatus()
                    != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
        } catch (WorkflowNotFoundException notStartedYet) {
            return false;
        }
    }

    private static Map<String, Long> deliveryStatuses() {
        return relaybox
                .api()
                .jdbi()
                .withHandle(h -> h.createQuery("SELECT status, count(*) FROM deliveries GROUP BY status")
                        .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getLong(2)))
                        .list())
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static String status(String workflowId) {
        return attribute(workflowId, RelaySearchAttributes.STATUS);
    }

    private static <T> T attribute(String workflowId, SearchAttributeKey<T> key) {
        return client.newUntypedWorkflowStub(workflowId)
                .describe()
                .getTypedSearchAttributes()
                .get(key);
    }

    private static List<WorkflowExecutionMetadata> find(String query) {
        return client.listExecutions(query).toList();
    }

    private static void awaitFound(String query, String workflowId) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(find(query))
                        .as(query)
                        .extracting(info -> info.getExecution().getWorkflowId())
                        .contains(workflowId));
    }

    private static int encodedBytes(String value) {
        return DefaultDataConverter.STANDARD_INSTANCE
                .toPayload(value)
                .orElseThrow()
                .getData()
                .size();
    }

    private static void endpoint(String name, String path, String... eventTypes) {
        relaybox.createEndpoint(name, RECEIVER.url(path), eventTypes);
    }

    private static String outbound(String eventType, String aggregateType, String aggregateId, Object payload) {
        Answer answer = relaybox.producer(
                "POST",
                "/outbox",
                Map.of(
                        "eventType", eventType,
                        "aggregateType", aggregateType,
                        "aggregateId", aggregateId,
                        "payload", payload));
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(202);
        return OutboxDeliveryWorkflow.workflowId(UUID.fromString(answer.text("id")));
    }

    /** A POST /outbox body of exactly {@code bytes} bytes. */
    private static String outboxBody(long bytes) {
        return padded(
                "{\"eventType\": \"bulk.exported\", \"aggregateType\": \"export\", \"aggregateId\": \"1\","
                        + " \"payload\": {\"rows\": \"",
                "\"}}",
                bytes);
    }

    /** A partner's order.created of exactly {@code bytes} bytes. */
    private static String webhookBody(String orderId, long bytes) {
        return padded(
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + orderId + "\", \"notes\": \"",
                "\"}}",
                bytes);
    }

    private static String padded(String head, String tail, long bytes) {
        String body = head + "x".repeat((int) bytes - head.length() - tail.length()) + tail;
        assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSize((int) bytes);
        return body;
    }
}
