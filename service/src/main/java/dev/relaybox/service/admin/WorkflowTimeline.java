package dev.relaybox.service.admin;

import io.temporal.api.common.v1.Payloads;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * A workflow's history in the words an operator uses: started, each activity with its summary and result, each
 * timer with its summary and duration, signals in and out, search attribute changes, failure, completion. The
 * engine's own bookkeeping (workflow tasks, version markers) is left out unless it failed. Local activities read
 * as activities. Newest entry first.
 */
public final class WorkflowTimeline {
    /** One line of the timeline; {@code kind} is stable for styling and tests, the rest is for people. */
    public record Entry(Instant at, String kind, String title, String detail) {}

    /** The timeline and where the workflow stands: {@code running} or how it closed. */
    public record View(String workflowType, String runId, String summary, String status, List<Entry> entries) {}

    private record Activity(String type, String summary) {}

    private record Timer(String summary, String duration) {}

    /** The SDK's marker name for a local activity's outcome. */
    private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

    private WorkflowTimeline() {}

    public static View of(List<HistoryEvent> events) {
        List<Entry> entries = new ArrayList<>();
        Map<Long, Activity> activities = new HashMap<>();
        Map<Long, Instant> activitiesClosed = new HashMap<>();
        Map<String, Timer> timers = new HashMap<>();
        String workflowType = "";
        String runId = "";
        String summary = "";
        String status = "running";
        for (HistoryEvent e : events) {
            Instant at = HistoryText.instant(e.getEventTime());
            switch (e.getEventType()) {
                case EVENT_TYPE_WORKFLOW_EXECUTION_STARTED -> {
                    var a = e.getWorkflowExecutionStartedEventAttributes();
                    workflowType = a.getWorkflowType().getName();
                    runId = a.getOriginalExecutionRunId();
                    summary = HistoryText.text(e.getUserMetadata());
                    entries.add(new Entry(
                            at,
                            "started",
                            "started " + workflowType,
                            join(summary, "input " + HistoryText.values(a.getInput()))));
                }
                case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
                    var a = e.getActivityTaskScheduledEventAttributes();
                    activities.put(
                            e.getEventId(),
                            new Activity(a.getActivityType().getName(), HistoryText.text(e.getUserMetadata())));
                }
                case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
                    var a = e.getActivityTaskCompletedEventAttributes();
                    activitiesClosed.put(a.getScheduledEventId(), at);
                    entries.add(new Entry(
                            at,
                            "activity",
                            "activity " + name(activities.get(a.getScheduledEventId())),
                            a.getResult().getPayloadsCount() == 0
                                    ? ""
                                    : "result " + HistoryText.values(a.getResult())));
                }
                case EVENT_TYPE_ACTIVITY_TASK_FAILED -> {
                    var a = e.getActivityTaskFailedEventAttributes();
                    activitiesClosed.put(a.getScheduledEventId(), at);
                    entries.add(new Entry(
                            at,
                            "activity-failed",
                            "activity " + name(activities.get(a.getScheduledEventId())) + " failed",
                            HistoryText.failure(a.getFailure())));
                }
                case EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT -> {
                    var a = e.getActivityTaskTimedOutEventAttributes();
                    activitiesClosed.put(a.getScheduledEventId(), at);
                    entries.add(new Entry(
                            at,
                            "activity-failed",
                            "activity " + name(activities.get(a.getScheduledEventId())) + " timed out",
                            HistoryText.failure(a.getFailure())));
                }
                case EVENT_TYPE_ACTIVITY_TASK_CANCELED -> {
                    var a = e.getActivityTaskCanceledEventAttributes();
                    activitiesClosed.put(a.getScheduledEventId(), at);
                    entries.add(new Entry(
                            at,
                            "activity-failed",
                            "activity " + name(activities.get(a.getScheduledEventId())) + " cancelled",
                            ""));
                }
                case EVENT_TYPE_TIMER_STARTED -> {
                    var a = e.getTimerStartedEventAttributes();
                    String duration = HistoryText.words(Duration.ofSeconds(
                            a.getStartToFireTimeout().getSeconds(),
                            a.getStartToFireTimeout().getNanos()));
                    Timer timer = new Timer(HistoryText.text(e.getUserMetadata()), duration);
                    timers.put(a.getTimerId(), timer);
                    entries.add(new Entry(
                            at,
                            "timer",
                            "timer " + name(timer) + " started for " + duration,
                            "fires at "
                                    + at.plus(Duration.ofSeconds(
                                            a.getStartToFireTimeout().getSeconds()))));
                }
                case EVENT_TYPE_TIMER_FIRED ->
                    entries.add(new Entry(
                            at,
                            "timer-fired",
                            "timer "
                                    + name(timers.get(
                                            e.getTimerFiredEventAttributes().getTimerId())) + " fired",
                            ""));
                case EVENT_TYPE_TIMER_CANCELED ->
                    entries.add(new Entry(
                            at,
                            "timer-cancelled",
                            "timer "
                                    + name(timers.get(
                                            e.getTimerCanceledEventAttributes().getTimerId())) + " cancelled",
                            ""));
                case EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED -> {
                    var a = e.getWorkflowExecutionSignaledEventAttributes();
                    entries.add(new Entry(
                            at,
                            "signal",
                            "signal " + a.getSignalName() + " received",
                            a.getInput().getPayloadsCount() == 0 ? "" : "input " + HistoryText.values(a.getInput())));
                }
                case EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED -> {
                    var a = e.getSignalExternalWorkflowExecutionInitiatedEventAttributes();
                    entries.add(new Entry(
                            at,
                            "signal-sent",
                            "signal " + a.getSignalName() + " sent to "
                                    + a.getWorkflowExecution().getWorkflowId(),
                            ""));
                }
                case EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES -> {
                    StringJoiner changes = new StringJoiner(", ");
                    new TreeMap<>(e.getUpsertWorkflowSearchAttributesEventAttributes()
                                    .getSearchAttributes()
                                    .getIndexedFieldsMap())
                            .forEach((key, value) -> changes.add(key + " = " + HistoryText.value(value)));
                    entries.add(new Entry(at, "search-attributes", "search attributes set", changes.toString()));
                }
                case EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED ->
                    entries.add(new Entry(
                            at,
                            "details",
                            "memo changed",
                            e.getWorkflowPropertiesModifiedEventAttributes()
                                    .getUpsertedMemo()
                                    .toString()));
                case EVENT_TYPE_WORKFLOW_TASK_FAILED -> {
                    var a = e.getWorkflowTaskFailedEventAttributes();
                    entries.add(new Entry(
                            at,
                            "failed",
                            "workflow task failed: " + a.getCause().name(),
                            HistoryText.failure(a.getFailure())));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED -> {
                    status = "completed";
                    Payloads result =
                            e.getWorkflowExecutionCompletedEventAttributes().getResult();
                    entries.add(new Entry(
                            at,
                            "completed",
                            "completed",
                            result.getPayloadsCount() == 0 ? "" : "result " + HistoryText.values(result)));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_FAILED -> {
                    status = "failed";
                    entries.add(new Entry(
                            at,
                            "failed",
                            "failed",
                            HistoryText.failure(e.getWorkflowExecutionFailedEventAttributes()
                                    .getFailure())));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT -> {
                    status = "timed out";
                    entries.add(new Entry(at, "failed", "timed out", ""));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED -> {
                    status = "cancelled";
                    entries.add(new Entry(at, "failed", "cancelled", ""));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED -> {
                    status = "terminated";
                    entries.add(new Entry(
                            at,
                            "failed",
                            "terminated",
                            e.getWorkflowExecutionTerminatedEventAttributes().getReason()));
                }
                case EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW -> {
                    status = "continued as new";
                    entries.add(new Entry(
                            at,
                            "completed",
                            "continued as a new run",
                            e.getWorkflowExecutionContinuedAsNewEventAttributes()
                                    .getNewExecutionRunId()));
                }
                case EVENT_TYPE_MARKER_RECORDED -> {
                    // Local activities (the database-only steps) leave a marker instead of scheduled/closed events.
                    var a = e.getMarkerRecordedEventAttributes();
                    if (LOCAL_ACTIVITY_MARKER.equals(a.getMarkerName())) {
                        Payloads type = a.getDetailsOrDefault("type", Payloads.getDefaultInstance());
                        Activity activity = new Activity(
                                type.getPayloadsCount() == 0
                                        ? "(unknown)"
                                        : HistoryText.unquoted(HistoryText.value(type.getPayloads(0))),
                                HistoryText.text(e.getUserMetadata()));
                        Payloads result = a.getDetailsOrDefault("result", Payloads.getDefaultInstance());
                        entries.add(
                                a.hasFailure()
                                        ? new Entry(
                                                at,
                                                "activity-failed",
                                                "activity " + name(activity) + " failed",
                                                HistoryText.failure(a.getFailure()))
                                        : new Entry(
                                                at,
                                                "activity",
                                                "activity " + name(activity),
                                                result.getPayloadsCount() == 0
                                                        ? ""
                                                        : "result " + HistoryText.values(result)));
                    }
                }
                default -> {
                    // Workflow tasks, version markers and the like: the engine's bookkeeping, not the event's story.
                }
            }
        }
        // An activity still running has no closing event; show it where it was scheduled.
        for (HistoryEvent e : events) {
            if (e.hasActivityTaskScheduledEventAttributes() && !activitiesClosed.containsKey(e.getEventId())) {
                entries.add(new Entry(
                        HistoryText.instant(e.getEventTime()),
                        "activity-running",
                        "activity " + name(activities.get(e.getEventId())) + " running",
                        ""));
            }
        }
        // Stable on equal times, so events of one instant keep their recorded order once reversed.
        List<Entry> newestFirst = new ArrayList<>(entries);
        newestFirst.sort((a, b) -> a.at().compareTo(b.at()));
        Collections.reverse(newestFirst);
        return new View(workflowType, runId, summary, status, List.copyOf(newestFirst));
    }

    private static String name(Activity activity) {
        if (activity == null) {
            return "(unknown)";
        }
        return activity.summary().isEmpty() ? activity.type() : activity.summary() + " (" + activity.type() + ")";
    }

    private static String name(Timer timer) {
        return timer == null || timer.summary().isEmpty() ? "(no summary)" : "'" + timer.summary() + "'";
    }

    private static String join(String first, String second) {
        return first.isEmpty() ? second : first + "; " + second;
    }
}
