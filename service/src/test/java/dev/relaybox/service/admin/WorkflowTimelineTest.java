package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.api.sdk.v1.UserMetadata;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timeline rendered from histories recorded by the running application (WorkflowHistoryBrowserTest's two
 * stories): a delivery that failed twice with 503 and succeeded after a retry-now signal, and an inbox event deferred
 * until order.paid released it.
 */
class WorkflowTimelineTest {

    @Test
    void threeAttemptDeliveryReadsNewestFirstWithEachWaitAndTheSignal() throws IOException {
        WorkflowTimeline.View view = WorkflowTimeline.of(recorded("delivery-three-attempts.json"));

        assertThat(view.workflowType()).isEqualTo("OutboxDelivery");
        assertThat(view.status()).isEqualTo("completed");
        assertThat(view.runId())
                .as("the run as recorded, not the SDK's replay placeholder")
                .isNotBlank()
                .isNotEqualTo("run_id_in_replay");
        List<String> lines = lines(view);
        assertThat(lines)
                .as("an activity that returns nothing shows no result")
                .contains("activity: activity DeliveryFinish");
        WorkflowHistoryBrowserTest.assertInOrder(
                lines,
                "completed: completed",
                "activity: activity attempt 3 to http://127.0.0.1:34671/three (DeliveryAttempt) | result "
                        + "{\"outcome\":\"DELIVERED\",\"statusCode\":200",
                "signal: signal retryNow received",
                "timer: timer 'wait before attempt 3 to http://127.0.0.1:34671/three' started for 1h | fires at ",
                "activity: activity attempt 2 to http://127.0.0.1:34671/three (DeliveryAttempt) | result "
                        + "{\"outcome\":\"RETRYABLE\",\"statusCode\":503",
                "timer-fired: timer 'wait before attempt 2 to http://127.0.0.1:34671/three' fired",
                "timer: timer 'wait before attempt 2 to http://127.0.0.1:34671/three' started for 1s",
                "search-attributes: search attributes set | RelayAttempts = 1, RelayStatus = retrying",
                "activity: activity attempt 1 to http://127.0.0.1:34671/three (DeliveryAttempt) | result "
                        + "{\"outcome\":\"RETRYABLE\",\"statusCode\":503",
                "search-attributes: search attributes set | RelayAggregate = invoice:3, RelayDirection = outbound, "
                        + "RelayEventType = invoice.paid",
                "started: started OutboxDelivery | input ");
        assertThat(lines)
                .as("the engine's workflow tasks are not part of the story")
                .noneMatch(line -> line.contains("WorkflowTask") || line.contains("workflow task"));
        assertThat(view.entries()).isSortedAccordingTo((a, b) -> b.at().compareTo(a.at()));
    }

    @Test
    void deferredInboxEventShowsItsSummaryTimerReleaseAndBothDecisions() throws IOException {
        WorkflowTimeline.View view = WorkflowTimeline.of(recorded("inbox-deferred-released.json"));

        assertThat(view.workflowType()).isEqualTo("InboxEvent");
        assertThat(view.summary()).isEqualTo("apply order.shipped from shop to order:hist-1712725460714");
        assertThat(view.status()).isEqualTo("completed");
        WorkflowHistoryBrowserTest.assertInOrder(
                lines(view),
                "completed: completed",
                "activity: activity decide order.shipped for order:hist-1712725460714 (InboxDecide) | result "
                        + "{\"outcome\":\"APPLIED\"",
                "timer-cancelled: timer 'recheck order.shipped (waiting for order.paid)' cancelled",
                "signal: signal release received",
                "timer: timer 'recheck order.shipped (waiting for order.paid)' started for 1h",
                "search-attributes: search attributes set | RelayAttempts = 1, RelayStatus = deferred",
                "activity: activity decide order.shipped for order:hist-1712725460714 (InboxDecide) | result "
                        + "{\"outcome\":\"DEFERRED\",\"reason\":\"waiting for order.paid: entity is created\"",
                "started: started InboxEvent | apply order.shipped from shop to order:hist-1712725460714; input ");
    }

    @Test
    void aHistoryCutShortShowsTheActivityStillRunning() throws IOException {
        var events = recorded("inbox-deferred-released.json");
        // Up to and including the first activity's scheduling: the workflow is waiting for it.
        int scheduled = 0;
        while (!events.get(scheduled).hasActivityTaskScheduledEventAttributes()) {
            scheduled++;
        }
        WorkflowTimeline.View view = WorkflowTimeline.of(events.subList(0, scheduled + 1));

        assertThat(view.status()).isEqualTo("running");
        assertThat(lines(view).get(0))
                .startsWith("activity-running: activity read inbox event ")
                .endsWith("(InboxPlan) running");
    }

    @Test
    void localActivitiesReadAsActivitiesWithTheirSummaryAndResult() {
        Timestamp at = Timestamp.newBuilder().setSeconds(1_700_000_000).build();
        HistoryEvent decided = HistoryEvent.newBuilder()
                .setEventId(5)
                .setEventTime(at)
                .setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
                .setUserMetadata(UserMetadata.newBuilder().setSummary(json("\"decide order.paid for order:7\"")))
                .setMarkerRecordedEventAttributes(MarkerRecordedEventAttributes.newBuilder()
                        .setMarkerName("LocalActivity")
                        .putDetails(
                                "type",
                                Payloads.newBuilder()
                                        .addPayloads(json("\"InboxDecide\""))
                                        .build())
                        .putDetails(
                                "result",
                                Payloads.newBuilder()
                                        .addPayloads(json("{\"outcome\":\"APPLIED\"}"))
                                        .build()))
                .build();
        HistoryEvent version = HistoryEvent.newBuilder()
                .setEventId(6)
                .setEventTime(at)
                .setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
                .setMarkerRecordedEventAttributes(
                        MarkerRecordedEventAttributes.newBuilder().setMarkerName("Version"))
                .build();

        assertThat(lines(WorkflowTimeline.of(List.of(decided, version))))
                .containsExactly(
                        "activity: activity decide order.paid for order:7 (InboxDecide) | result {\"outcome\":\"APPLIED\"}");
    }

    private static Payload json(String text) {
        return Payload.newBuilder()
                .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
                .setData(ByteString.copyFromUtf8(text))
                .build();
    }

    @Test
    void durationsReadAsASchedule() {
        assertThat(HistoryText.words(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(HistoryText.words(Duration.ofMinutes(90))).isEqualTo("1h 30m");
        assertThat(HistoryText.words(Duration.ofHours(24))).isEqualTo("1d");
        assertThat(HistoryText.words(Duration.ofMillis(250))).isEqualTo("250ms");
    }

    private static List<String> lines(WorkflowTimeline.View view) {
        return view.entries().stream()
                .map(e -> e.kind() + ": " + e.title() + (e.detail().isEmpty() ? "" : " | " + e.detail()))
                .toList();
    }

    private static List<HistoryEvent> recorded(String name) throws IOException {
        try (InputStream in = WorkflowTimelineTest.class.getResourceAsStream("/histories/" + name)) {
            return WorkflowExecutionHistory.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .getEvents();
        }
    }
}
