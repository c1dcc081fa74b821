package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.WorkflowVisibility;
import io.temporal.workflow.Async;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Delivers one outbox row to every endpoint subscribed to it:
 *
 * <ol>
 *   <li>plan: the row's deliveries not yet finished, and the retry schedule in force (given by a starter that planned
 *       in the transaction that claimed the row, or made here);
 *   <li>for each delivery, on its own branch: resume at the attempt time its row records (a run that takes over
 *       mid-schedule), then until it finishes: be admitted by the endpoint's controls ({@link EndpointGate}; a first
 *       attempt the plan found nothing to hold goes at once), make one HTTP attempt ({@link HttpAttempts}), which
 *       reports itself to the controls, and act on the answer: delivered; dead-lettered on 410
 *       Gone, on any other permanent answer or when the schedule is spent; paused when the endpoint is disabled;
 *       otherwise wait (for an open circuit, or the schedule's delay or the receiver's {@code Retry-After}, which
 *       {@code retryNow} cuts short) and attempt again;
 *   <li>plan again while a {@code replan} signal came in (a replayed dead letter joins a running workflow), then
 *       mark the row finished, unless the attempt that delivered its last delivery did.
 * </ol>
 *
 * <p>What the Temporal UI shows of it follows every step ({@link DeliveryBoard}); its search attributes change where
 * it starts to wait and at its end. The bookkeeping is local activities: an HTTP attempt is the only activity that
 * goes through the server. Plans recorded by release 1.0 are carried out as then ({@link DeliveryPlan#revision}).
 */
public final class OutboxDeliveryWorkflowImpl implements OutboxDeliveryWorkflow {
    /**
     * HTTP attempts of one event in flight at once. Every endpoint still gets its own branch (a slow or failing
     * one never holds back the others: waiting for a retry takes no slot), but a fan-out to hundreds of
     * endpoints keeps at most this many activities pending, far from Temporal's 2,000 per workflow, and leaves
     * worker slots to other events. It decides the order of recorded commands: change it only behind a
     * {@link Workflow#getVersion}.
     */
    public static final int MAX_ATTEMPTS_IN_FLIGHT = 20;

    /**
     * A run whose history has grown this long continues as new once every delivery branch waits (on a timer, a
     * signal or the endpoint's controls): a delivery that waits out an endpoint's five-day outage, one probe or
     * recheck at a time, stays far below Temporal's history limits (10,240 events warn, 51,200 fail).
     */
    static final int CONTINUE_AS_NEW_AFTER_EVENTS = 2_000;

    private final DeliveryBoard board = new DeliveryBoard();
    private final ResumableWaits waits = new ResumableWaits();
    private final EndpointGate gate = new EndpointGate(board, () -> this.retryNowSignals, waits);
    private final Random random = Workflow.newRandom();
    /** Bookkeeping: retried until the database answers, however long that takes (an outage must not fail a run). */
    private final DatabaseCalls database =
            new DatabaseCalls(DatabaseCalls.OtherFailures.WAITED_OUT, WorkflowVisibility::details);

    private HttpAttempts http;

    private UUID outboxId;
    private boolean replanRequested;
    private int retryNowSignals;
    /** An attempt of the current plan delivered the row's last delivery and finished the row. */
    private boolean outboxFinished;

    @Override
    public void deliver(UUID outboxId, DeliveryPlan firstPlan) {
        this.outboxId = outboxId;
        DeliveryPlan plan = firstPlan == null ? planAgain() : firstPlan;
        // The first plan's revision holds for the whole run, as Workflow.getVersion's would.
        http = new HttpAttempts(board, gate, plan.revision());
        if (plan.revision() >= DeliveryPlan.WAITS_CANCEL_THEIR_TIMERS) {
            waits.cancelTimersCutShort();
        }
        if (http.attemptSettles()) {
            // What the workflow is about was set when it was started.
            board.publishWhenWaiting();
        } else {
            board.describe(plan);
        }
        while (true) {
            if (!plan.targets().isEmpty()) {
                deliverAll(plan);
                if (replanRequested) {
                    plan = planAgain();
                    continue;
                }
                // Otherwise every target has finished or paused: planning again would find nothing.
            }
            if (!outboxFinished) {
                store("finish the outbox event", activities -> activities.finish(outboxId));
            }
            board.refresh();
            board.publish();
            if (!replanRequested) {
                return;
            }
            // A replan that came while finishing: a replayed delivery joined as the workflow was closing.
            plan = planAgain();
        }
    }

    private DeliveryPlan planAgain() {
        replanRequested = false;
        outboxFinished = false;
        return database.call(DeliveryActivities.class, "plan the deliveries", activities -> activities.plan(outboxId));
    }

    private void deliverAll(DeliveryPlan plan) {
        List<TrackedDelivery> tracked =
                plan.targets().stream().map(board::track).toList();
        List<TrackedDelivery> atOnce = tracked.stream()
                .filter(OutboxDeliveryWorkflowImpl::goesAtOnce)
                .limit(MAX_ATTEMPTS_IN_FLIGHT)
                .toList();
        Map<UUID, SettledAttempt> madeTogether = http.firstAttempts(atOnce);
        List<Promise<Void>> deliveries = new ArrayList<>();
        for (TrackedDelivery delivery : tracked) {
            // Each endpoint on its own branch: a slow or failing one never holds back the others.
            deliveries.add(Async.procedure(() -> deliver(delivery, plan.schedule(), madeTogether.get(delivery.id()))));
        }
        board.showEndpoints();
        Promise<Void> all = Promise.allOf(deliveries);
        if (http.attemptSettles()) {
            Workflow.await(() -> all.isCompleted()
                    || historyIsLong()
                            && waits.allWaiting(deliveries.stream()
                                    .filter(delivery -> !delivery.isCompleted())
                                    .count()));
            if (!all.isCompleted()) {
                // The fresh run plans from the rows: each delivery's recorded next attempt, or the controls' say.
                Workflow.continueAsNew(outboxId);
            }
        }
        all.get();
    }

    private static boolean historyIsLong() {
        return Workflow.getInfo().getHistoryLength() >= CONTINUE_AS_NEW_AFTER_EVENTS
                || Workflow.getInfo().isContinueAsNewSuggested();
    }

    /** The plan just found nothing to hold its first attempt for; every later attempt asks. */
    private static boolean goesAtOnce(TrackedDelivery delivery) {
        return delivery.target.goesAtOnce() && delivery.target.nextAttemptAt() == null;
    }

    /** {@code madeTogether}: its first attempt, already made with the others' that went at once; or null. */
    private void deliver(TrackedDelivery delivery, DeliverySchedule schedule, SettledAttempt madeTogether) {
        int attempt = delivery.target.attemptsSoFar();
        if (delivery.target.nextAttemptAt() != null) {
            resumeAtRecordedAttemptTime(delivery, attempt, delivery.target.nextAttemptAt());
        }
        boolean admitted = goesAtOnce(delivery);
        SettledAttempt first = madeTogether;
        while (true) {
            boolean atOnce = admitted;
            if (!admitted) {
                gate.admit(delivery);
            }
            admitted = false;
            attempt++;
            SettledAttempt settled = http.attempt(delivery, attempt, atOnce, first);
            first = null;
            AttemptResult result = settled.result();
            CircuitState circuit = settled.circuit();
            outboxFinished |= settled.outboxFinished();
            delivery.attempts = attempt;
            delivery.lastResult = result.summary();
            switch (result.outcome()) {
                case DELIVERED -> {
                    board.show(
                            delivery,
                            DeliveryPhase.DELIVERED,
                            "delivered on attempt " + attempt + ": " + result.summary());
                    gate.finished(delivery);
                    return;
                }
                case GONE -> {
                    deadLetter(delivery, "endpoint answered 410 Gone; it has been disabled", result);
                    return;
                }
                case PERMANENT -> {
                    deadLetter(delivery, "endpoint answered " + result.summary() + "; not retried", result);
                    return;
                }
                case PAUSED -> {
                    // Nothing was sent; enabling the endpoint resumes the delivery through the dispatcher.
                    board.show(delivery, DeliveryPhase.PAUSED, result.summary());
                    return;
                }
                case RETRYABLE -> {
                    if (circuit.circuitOpen()) {
                        // The endpoint is down, not this event: wait for the circuit instead of spending the schedule.
                        waitForCircuit(delivery, attempt, result, circuit.nextProbeAt());
                    } else if (attempt >= schedule.maxAttempts()) {
                        deadLetter(
                                delivery, "gave up after " + attempt + " attempts; last: " + result.summary(), result);
                        return;
                    } else {
                        waitBeforeRetry(delivery, schedule, attempt, result);
                    }
                }
            }
        }
    }

    /** The circuit's probe time is recorded; the wait itself is the next decision's. */
    private void waitForCircuit(TrackedDelivery delivery, int attempt, AttemptResult result, Instant nextProbe) {
        store(
                "record the wait for " + delivery.endpointName() + "'s circuit",
                activities -> activities.scheduleRetry(delivery.id(), nextProbe, result.summary()));
        board.show(
                delivery,
                DeliveryPhase.WAITING,
                "attempt " + attempt + " failed: " + result.summary() + "; circuit open, next probe " + nextProbe);
    }

    private void waitBeforeRetry(
            TrackedDelivery delivery, DeliverySchedule schedule, int attempt, AttemptResult result) {
        Duration wait = schedule.waitAfter(attempt, result, random::nextDouble);
        Instant next = now().plus(wait).truncatedTo(ChronoUnit.SECONDS);
        store(
                "record the retry of " + delivery.endpointName() + " at " + next,
                activities -> activities.scheduleRetry(delivery.id(), next, result.summary()));
        awaitNextAttempt(
                delivery,
                attempt + 1,
                wait,
                next,
                "attempt " + attempt + " failed: " + result.summary() + "; next attempt " + next);
    }

    /**
     * A run that takes over a delivery in the middle of its schedule (the engine lost the earlier run, or the
     * reconciler started it again) waits until the time the row records, then makes the next attempt in the count:
     * losing a run never resets the schedule.
     */
    private void resumeAtRecordedAttemptTime(TrackedDelivery delivery, int attemptsSoFar, Instant nextAttemptAt) {
        Duration wait = Duration.between(now(), nextAttemptAt);
        if (wait.isNegative() || wait.isZero()) {
            return;
        }
        awaitNextAttempt(
                delivery,
                attemptsSoFar + 1,
                wait,
                nextAttemptAt,
                "attempt " + attemptsSoFar + " failed; next attempt " + nextAttemptAt + " (as recorded)");
    }

    /** Backs off until the next attempt is due, or until {@code retryNow}. */
    private void awaitNextAttempt(
            TrackedDelivery delivery, int nextAttempt, Duration wait, Instant at, String details) {
        delivery.nextAttemptAt = at;
        board.showWaiting(delivery, DeliveryPhase.RETRYING, details);
        int retryNowBefore = retryNowSignals;
        waits.await(
                wait,
                "wait before attempt " + nextAttempt + " to " + delivery.target.url(),
                () -> retryNowSignals > retryNowBefore);
        delivery.nextAttemptAt = null;
    }

    private void deadLetter(TrackedDelivery delivery, String reason, AttemptResult result) {
        store(
                "dead-letter the delivery to " + delivery.endpointName(),
                activities -> activities.deadLetter(delivery.id(), reason, result.summary()));
        board.show(delivery, DeliveryPhase.DEAD_LETTERED, "dead-lettered: " + reason);
        gate.finished(delivery);
    }

    /** A database-only delivery call, described in the Temporal UI's timeline by {@code summary}. */
    private void store(String summary, Functions.Proc1<DeliveryActivities> call) {
        database.run(DeliveryActivities.class, summary, call);
    }

    private static Instant now() {
        return Instant.ofEpochMilli(Workflow.currentTimeMillis());
    }

    @Override
    public void retryNow() {
        retryNowSignals++;
    }

    @Override
    public void endpointReady(UUID endpointId) {
        gate.endpointReady(endpointId);
    }

    @Override
    public void replan() {
        replanRequested = true;
    }

    @Override
    public OutboxProgress status() {
        return board.status(outboxId);
    }
}
