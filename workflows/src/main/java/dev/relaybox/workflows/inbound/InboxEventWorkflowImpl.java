package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.TimerOrSignal;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Processes one stored inbox event:
 *
 * <ol>
 *   <li>plan: what the row is (for the Temporal UI) and the deferral settings in force, read by the dispatcher that
 *       started it, or else by the workflow;
 *   <li>decide: the aggregate's state machine applies the event, ignores it as stale, rejects it (quarantined with a
 *       dead letter), or defers it because an earlier event is missing;
 *   <li>applied: release the aggregate's deferred events (signal them to decide again), and finish;
 *   <li>deferred: wait for a {@code release} or the recheck timer, whichever comes first, and decide again; past
 *       the maximum deferral the event is dead-lettered.
 * </ol>
 *
 * <p>The maximum deferral counts from the row's first DEFERRED decision, on Temporal's clock, recorded in the row
 * ({@code deferred_since}) so that it survives what ends a run. A long deferral (a week at one recheck a minute is
 * about 10,000 decisions) would grow the history past Temporal's limits, so after {@value #CONTINUE_AS_NEW_AFTER_EVENTS}
 * events, or when the server suggests it, the workflow continues as new; the next run reads the recorded start and
 * keeps counting.
 *
 * <p>Its search attributes change where it starts to wait and at its end; plans recorded by release 1.0 are carried out
 * as then ({@link InboxPlan#revision}). A database that cannot be reached is waited out, however long it stays away
 * ({@link DatabaseCalls}); only other failures, through every retry, dead-letter the event. Should a run fail anyway,
 * the row is still RECEIVED or DEFERRED, never lost: Relaybox's reconciler finds non-terminal rows whose workflow is
 * not running and starts them again.
 */
public final class InboxEventWorkflowImpl implements InboxEventWorkflow {
    /** Well under Temporal's 10,240-event warning and 51,200-event limit; a recheck adds about a dozen events. */
    static final int CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

    private final InboxBoard board = new InboxBoard();
    private final DatabaseCalls store = new DatabaseCalls(DatabaseCalls.OtherFailures.THROWN, board::showWaiting);
    private UUID inboxId;
    private InboxPlan plan;
    private boolean released;

    @Override
    public void process(UUID inboxId, InboxPlan startingPlan) {
        this.inboxId = inboxId;
        plan = startingPlan != null
                ? startingPlan
                : store.call(
                        InboxActivities.class, "read inbox event " + inboxId, activities -> activities.plan(inboxId));
        if (plan.revision() >= InboxPlan.PUBLISHED_WHEN_WAITING) {
            // What the workflow is about was set when it was started.
            board.publishWhenWaiting();
        } else {
            board.describe(plan);
        }
        board.show(InboxState.RECEIVED, "deciding " + subject());
        decideUntilFinished();
        board.publish();
    }

    private void decideUntilFinished() {

        // Recorded by an earlier run of this row: a continued or restarted deferral keeps its deadline.
        Instant deferredSince = plan.deferredSince();
        while (true) {
            // Cleared before deciding, not after: a release that lands while decide runs must not be lost.
            released = false;
            Optional<InboxOutcome> decided = decide();
            if (decided.isEmpty()) {
                return;
            }
            InboxOutcome decision = decided.get();
            board.decided(decision);
            String earlier = decision.alreadyFinished() ? "already finished earlier: " : "";
            switch (decision.outcome()) {
                case APPLIED -> {
                    // Also after an earlier run: it may have committed and then crashed before releasing.
                    release(decision.release());
                    board.show(InboxState.PROCESSED, earlier + decision.reason());
                    return;
                }
                case STALE -> {
                    board.show(InboxState.PROCESSED, earlier + "ignored as stale: " + decision.reason());
                    return;
                }
                case REJECTED -> {
                    board.show(InboxState.QUARANTINED, earlier + "quarantined: " + decision.reason());
                    return;
                }
                case DEFERRED -> {
                    Instant now = now();
                    if (deferredSince == null) {
                        deferredSince = recordDeferralStart(now);
                    }
                    Instant deadline = deferredSince.plus(plan.maxDeferral());
                    if (!now.isBefore(deadline)) {
                        String why = decision.reason() + " (still deferred after " + words(plan.maxDeferral()) + ")";
                        giveUp(why, decision.reason());
                        return;
                    }
                    awaitReleaseOrRecheck(decision, deadline);
                    if (historyIsLong()) {
                        // Decides again at once in the new run, as this run would have now; it reads its plan again.
                        Workflow.continueAsNew(inboxId);
                    }
                }
            }
        }
    }

    /** The decision, or empty when the store kept failing and the event was dead-lettered instead. */
    private Optional<InboxOutcome> decide() {
        try {
            return Optional.of(
                    store.call(InboxActivities.class, "decide " + subject(), activities -> activities.decide(inboxId)));
        } catch (ActivityFailure e) {
            if (e.getCause() instanceof ApplicationFailure failure && failure.isNonRetryable()) {
                throw e;
            }
            String error = DatabaseCalls.rootMessage(e);
            int attempts = DatabaseCalls.ATTEMPTS;
            board.show("could not decide after " + attempts + " attempts: " + error + "; dead-lettering");
            // If this fails too, the workflow fails and the reconciler restarts it later: the row is still unfinished.
            giveUp("could not be processed after " + attempts + " attempts: " + error, error);
            return Optional.empty();
        }
    }

    private Instant recordDeferralStart(Instant since) {
        store.run(
                InboxActivities.class,
                "record the deferral start of " + subject(),
                activities -> activities.recordDeferralStart(inboxId, since));
        return since;
    }

    private void awaitReleaseOrRecheck(InboxOutcome deferred, Instant deadline) {
        Instant now = now();
        Duration untilDeadline = Duration.between(now, deadline);
        Duration wait = untilDeadline.compareTo(plan.recheckInterval()) < 0 ? untilDeadline : plan.recheckInterval();
        board.nextRecheckAt(now.plus(wait));
        board.showWaiting(
                InboxState.DEFERRED,
                "waiting for " + deferred.waitingFor() + "; " + describe(deferred.entityState()) + "; rechecks every "
                        + words(plan.recheckInterval()) + " until " + deadline.truncatedTo(ChronoUnit.SECONDS));
        TimerOrSignal.awaitCancellingTheTimer(
                wait,
                "recheck " + plan.eventType() + " (waiting for " + deferred.waitingFor() + ")",
                () -> released,
                plan.revision() >= InboxPlan.RECHECK_ABOUT_TO_FIRE_KEPT);
        board.nextRecheckAt(null);
        // Still "deferred" for search: flipping to pending for the moment of a recheck would only be noise.
        board.showDetails("deciding again " + (released ? "after a release" : "at the recheck"));
    }

    private static boolean historyIsLong() {
        return Workflow.getInfo().getHistoryLength() >= CONTINUE_AS_NEW_AFTER_EVENTS
                || Workflow.getInfo().isContinueAsNewSuggested();
    }

    private void giveUp(String why, String lastError) {
        store.run(
                InboxActivities.class,
                "dead-letter " + subject(),
                activities -> activities.deadLetter(inboxId, why, lastError));
        board.reason(why);
        board.show(InboxState.QUARANTINED, "dead-lettered: " + why);
    }

    /** Signals every released workflow at once; one that is closed or missing has nothing left to wait for. */
    private static void release(List<String> workflowIds) {
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

    @Override
    public void release() {
        released = true;
    }

    @Override
    public InboxStatus status() {
        return board.status(inboxId);
    }
}
