package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.VisibilityLimits;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Decides, and while the event is deferred waits for a release signal (or the recheck timer) and decides again.
 *
 * <p>The maximum deferral counts from the row's first DEFERRED decision, on Temporal's clock, recorded in the row
 * ({@code deferred_since}) so that it survives what ends a run. A long deferral (a week at one recheck a minute is
 * about 10,000 decisions) would grow the history past Temporal's limits, so after {@value #CONTINUE_AS_NEW_AFTER_EVENTS}
 * events, or when the server suggests it, the workflow continues as new; the next run reads the recorded start and
 * keeps counting.
 *
 * <p>A database that cannot be reached is waited out, however long it stays away: each store call retries with
 * capped backoff, and when its retries are spent on the outage the workflow says so in its current details, counts
 * {@value #DATABASE_WAITS_METRIC} and calls again. Only other failures, through every retry, dead-letter the event.
 * Should a run fail anyway, the row is still RECEIVED or DEFERRED, never lost: Relaybox's reconciler finds
 * non-terminal rows whose workflow is not running and starts them again.
 */
public final class InboxEventWorkflowImpl implements InboxEventWorkflow {
    static final int STORE_ATTEMPTS = 10;
    /** Well under Temporal's 10,240-event warning and 51,200-event limit; a recheck adds about a dozen events. */
    static final int CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

    static final String DATABASE_WAITS_METRIC = "relaybox_database_waits";

    // Local activities: the work is database-only, so it runs in the workflow task instead of taking a round trip
    // through the server each; backoffs past a few seconds become durable timers instead of holding the task open.
    // Bounded, so that a failure other than an outage ends in a dead letter, and an outage shows up in the workflow's
    // details between rounds rather than only as a pending activity's attempt count.
    private static final LocalActivityOptions LOCAL_STORE = LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setMaximumInterval(Duration.ofMinutes(1))
                    .setMaximumAttempts(STORE_ATTEMPTS)
                    .build())
            .setLocalRetryThreshold(Duration.ofSeconds(5))
            .build();

    private UUID inboxId;
    private InboxPlan plan;
    private boolean released;
    private Promise<Void> recheck;
    private InboxState state = InboxState.RECEIVED;
    private String outcome;
    private int attempts;
    private String reason;
    private String waitingFor;
    private Instant nextRecheckAt;
    private InboxState shownState;
    private int shownAttempts = -1;

    @Override
    public void process(UUID inboxId) {
        this.inboxId = inboxId;
        plan = waitingOutTheDatabase(
                "read inbox event " + inboxId,
                () -> store("read inbox event " + inboxId).plan(inboxId));
        describeEvent();
        show(InboxState.RECEIVED, "deciding " + subject());

        // Recorded by an earlier run of this row: a continued or restarted deferral keeps its deadline.
        Instant deferredSince = plan.deferredSince();
        while (true) {
            // Cleared before deciding, not after: a release that lands while decide runs must not be lost.
            released = false;
            Optional<InboxOutcome> decided = decide();
            if (decided.isEmpty()) {
                return;
            }
            InboxOutcome result = decided.get();
            outcome = result.outcome().name();
            attempts = result.attempts();
            reason = result.reason();
            waitingFor = result.waitingFor();
            String earlier = result.alreadyFinished() ? "already finished earlier: " : "";
            switch (result.outcome()) {
                case APPLIED -> {
                    // Also after an earlier run: it may have committed and then crashed before releasing.
                    release(result.release());
                    show(InboxState.PROCESSED, earlier + reason);
                    return;
                }
                case STALE -> {
                    show(InboxState.PROCESSED, earlier + "ignored as stale: " + reason);
                    return;
                }
                case REJECTED -> {
                    show(InboxState.QUARANTINED, earlier + "quarantined: " + reason);
                    return;
                }
                case DEFERRED -> {
                    Instant now = now();
                    if (deferredSince == null) {
                        deferredSince = now;
                        Instant since = deferredSince;
                        waitingOutTheDatabase("record the deferral start", () -> {
                            store("record deferral start of " + subject()).recordDeferralStart(inboxId, since);
                            return null;
                        });
                    }
                    Instant deadline = deferredSince.plus(plan.maxDeferral());
                    if (!now.isBefore(deadline)) {
                        giveUp(reason + " (still deferred after " + words(plan.maxDeferral()) + ")", reason);
                        return;
                    }
                    awaitReleaseOrRecheck(result, deadline);
                    if (historyIsLong()) {
                        // Decides again at once in the new run, as this run would have now.
                        Workflow.continueAsNew(inboxId);
                    }
                }
            }
        }
    }

    /** The decision, or empty when the database stayed unavailable and the event was dead-lettered instead. */
    private Optional<InboxOutcome> decide() {
        try {
            return Optional.of(waitingOutTheDatabase(
                    "decide", () -> store("decide " + subject()).decide(inboxId)));
        } catch (ActivityFailure e) {
            if (e.getCause() instanceof ApplicationFailure failure && failure.isNonRetryable()) {
                throw e;
            }
            String error = rootMessage(e);
            show(state, "could not decide after " + STORE_ATTEMPTS + " attempts: " + error + "; dead-lettering");
            // If this fails too, the workflow fails and the reconciler restarts it later: the row is still unfinished.
            giveUp("could not be processed after " + STORE_ATTEMPTS + " attempts: " + error, error);
            return Optional.empty();
        }
    }

    private void awaitReleaseOrRecheck(InboxOutcome deferred, Instant deadline) {
        Instant now = now();
        Duration wait = Duration.between(now, deadline).compareTo(plan.recheckInterval()) < 0
                ? Duration.between(now, deadline)
                : plan.recheckInterval();
        nextRecheckAt = now.plus(wait);
        show(
                InboxState.DEFERRED,
                "waiting for " + deferred.waitingFor() + "; " + describe(deferred.entityState()) + "; rechecks every "
                        + words(plan.recheckInterval()) + " until " + deadline.truncatedTo(ChronoUnit.SECONDS));

        CancellationScope timerScope = Workflow.newCancellationScope(() -> recheck = Workflow.newTimer(
                wait,
                TimerOptions.newBuilder()
                        .setSummary(VisibilityLimits.summary(
                                "recheck " + plan.eventType() + " (waiting for " + deferred.waitingFor() + ")"))
                        .build()));
        timerScope.run();
        Workflow.await(() -> recheck.isCompleted() || released);
        if (!recheck.isCompleted()) {
            // Released early: drop the timer so a long deferral does not leave a trail of timers firing for nothing.
            timerScope.cancel();
        }
        nextRecheckAt = null;
        // Still "deferred" for search: flipping to pending for the moment of a recheck would only be noise.
        Workflow.setCurrentDetails("deciding again " + (released ? "after a release" : "at the recheck"));
    }

    private static boolean historyIsLong() {
        return Workflow.getInfo().getHistoryLength() >= CONTINUE_AS_NEW_AFTER_EVENTS
                || Workflow.getInfo().isContinueAsNewSuggested();
    }

    private void giveUp(String why, String lastError) {
        waitingOutTheDatabase("dead-letter", () -> {
            store("dead-letter " + subject()).deadLetter(inboxId, why, lastError);
            return null;
        });
        reason = why;
        show(InboxState.QUARANTINED, "dead-lettered: " + why);
    }

    /** Signals every released workflow at once; one that is closed or missing has nothing left to wait for. */
    private void release(List<String> workflowIds) {
        List<Promise<Void>> signals = new ArrayList<>();
        for (String workflowId : workflowIds) {
            signals.add(Async.procedure(() -> {
                try {
                    Workflow.newUntypedExternalWorkflowStub(workflowId).signal("release");
                } catch (SignalExternalWorkflowException | ApplicationFailure e) {
                    // The SDK reports a closed or missing target as an ApplicationFailure of type
                    // ..._EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND. Closed: an earlier release already let it finish.
                    // Missing: the reconciler will start it and it decides afresh. Either way this row is PROCESSED,
                    // and a release is only a shortcut past the recheck, so nothing here may fail the workflow.
                }
            }));
        }
        Promise.allOf(signals).get();
    }

    /**
     * Calls the store, and calls again for as long as the database cannot be reached (the call's retries spent on
     * the outage, or timed out against a server that stopped answering). Other failures are thrown.
     */
    private <T> T waitingOutTheDatabase(String what, Functions.Func<T> call) {
        Instant waitingSince = null;
        while (true) {
            try {
                return call.apply();
            } catch (ActivityFailure e) {
                if (!databaseUnavailable(e)) {
                    throw e;
                }
                waitingSince = waitingSince == null ? now() : waitingSince;
                Workflow.getMetricsScope().counter(DATABASE_WAITS_METRIC).inc(1);
                show(
                        state,
                        "waiting for the database since " + waitingSince.truncatedTo(ChronoUnit.SECONDS) + " to " + what
                                + ": " + rootMessage(e) + "; trying again");
            }
        }
    }

    private static boolean databaseUnavailable(ActivityFailure e) {
        return e.getCause() instanceof TimeoutFailure
                || e.getCause() instanceof ApplicationFailure failure
                        && InboxActivities.DATABASE_UNAVAILABLE.equals(failure.getType());
    }

    private InboxActivities store(String summary) {
        return Workflow.newLocalActivityStub(
                InboxActivities.class,
                LocalActivityOptions.newBuilder(LOCAL_STORE)
                        .setSummary(VisibilityLimits.summary(summary))
                        .build());
    }

    private void describeEvent() {
        List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
        updates.add(RelaySearchAttributes.DIRECTION.valueSet("inbound"));
        updates.add(RelaySearchAttributes.PEER.valueSet(VisibilityLimits.keyword(plan.partner())));
        // A poison event may lack these; leaving them unset beats inventing a value operators would search for.
        if (plan.eventType() != null) {
            updates.add(RelaySearchAttributes.EVENT_TYPE.valueSet(VisibilityLimits.keyword(plan.eventType())));
        }
        if (plan.aggregate() != null) {
            updates.add(RelaySearchAttributes.AGGREGATE.valueSet(VisibilityLimits.keyword(plan.aggregate())));
        }
        Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
    }

    /**
     * Keeps the Temporal UI's status, attempts and current details in step with the row. Search attributes are
     * upserted only when they change: each upsert is a history event, and a long deferral rechecks many times.
     */
    private void show(InboxState state, String details) {
        this.state = state;
        if (state != shownState || attempts != shownAttempts) {
            Workflow.upsertTypedSearchAttributes(
                    RelaySearchAttributes.STATUS.valueSet(state.searchValue()),
                    RelaySearchAttributes.ATTEMPTS.valueSet((long) attempts));
            shownState = state;
            shownAttempts = attempts;
        }
        Workflow.setCurrentDetails(VisibilityLimits.details(details));
    }

    /** "order.paid for order:42", in summaries; a poison event may lack either part. */
    private String subject() {
        return (plan.eventType() == null ? "event without type" : plan.eventType())
                + (plan.aggregate() == null ? " without aggregate" : " for " + plan.aggregate());
    }

    private static Instant now() {
        return Instant.ofEpochMilli(Workflow.currentTimeMillis());
    }

    private static String describe(String entityState) {
        return "none".equals(entityState) ? "entity does not exist yet" : "entity is " + entityState;
    }

    /** "5m", "24h", "1h30m": how operators write durations. */
    private static String words(Duration duration) {
        return duration.toString().substring(2).toLowerCase();
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        // Temporal's own message adds type and retry flags; operators want what the database said.
        return cause instanceof TemporalFailure failure ? failure.getOriginalMessage() : cause.getMessage();
    }

    @Override
    public void release() {
        released = true;
    }

    @Override
    public InboxStatus status() {
        return new InboxStatus(
                inboxId,
                state.searchValue(),
                outcome,
                attempts,
                reason,
                waitingFor,
                nextRecheckAt == null ? null : nextRecheckAt.toString());
    }
}
