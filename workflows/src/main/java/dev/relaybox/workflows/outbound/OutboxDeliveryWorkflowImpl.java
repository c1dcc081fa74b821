package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.VisibilityLimits;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;

public final class OutboxDeliveryWorkflowImpl implements OutboxDeliveryWorkflow {
    /**
     * HTTP attempts of one event in flight at once. Every endpoint still gets its own branch (a slow or failing
     * one never holds back the others: waiting for a retry takes no slot), but a fan-out to hundreds of
     * endpoints keeps at most this many activities pending, far from Temporal's 2,000 per workflow, and leaves
     * worker slots to other events. It decides the order of recorded commands: change it only behind a
     * {@link Workflow#getVersion}.
     */
    public static final int MAX_ATTEMPTS_IN_FLIGHT = 20;

    static final String DATABASE_WAITS_METRIC = "relaybox_database_waits";
    private static final Duration LONGEST_WAIT_FOR_RELAYBOX = Duration.ofMinutes(5);

    // Bookkeeping activities touch only the database: retry them until it is back, however long that takes (an
    // outage must not turn into a failed workflow); the backoff is capped so it resumes soon after.
    private static final RetryOptions UNTIL_THE_DATABASE_ANSWERS = RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setMaximumInterval(Duration.ofMinutes(1))
            .setMaximumAttempts(0)
            .build();
    // Local activities, so that an HTTP attempt is the only activity that goes through the server; backoffs past a
    // few seconds become durable timers instead of holding the workflow task open.
    private static final LocalActivityOptions LOCAL_STORE = LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(UNTIL_THE_DATABASE_ANSWERS)
            .setLocalRetryThreshold(Duration.ofSeconds(5))
            .build();

    // Local: asked before and after every attempt, they must not double the round trips through the server.
    // They only touch the database; a longer outage is waited out by untilDatabaseAnswers.
    private final EndpointControlActivities controls = Workflow.newLocalActivityStub(
            EndpointControlActivities.class,
            LocalActivityOptions.newBuilder()
                    .setStartToCloseTimeout(Duration.ofSeconds(30))
                    .setRetryOptions(RetryOptions.newBuilder()
                            .setInitialInterval(Duration.ofSeconds(1))
                            .setMaximumInterval(Duration.ofSeconds(10))
                            .setMaximumAttempts(3)
                            .build())
                    .build());

    private final Map<UUID, Progress> progress = new LinkedHashMap<>();
    private final Map<UUID, Integer> endpointReadySignals = new HashMap<>();
    private final Random random = Workflow.newRandom();
    private UUID outboxId;
    private boolean replanRequested;
    private int retryNowSignals;
    private int attemptsInFlight;
    private String shownStatus;
    private long shownAttempts = -1;
    private List<String> shownEndpoints;

    @Override
    public void deliver(UUID outboxId) {
        this.outboxId = outboxId;
        DeliveryPlan plan = planAgain();
        Workflow.upsertTypedSearchAttributes(
                RelaySearchAttributes.DIRECTION.valueSet("outbound"),
                RelaySearchAttributes.EVENT_TYPE.valueSet(VisibilityLimits.keyword(plan.eventType())),
                RelaySearchAttributes.AGGREGATE.valueSet(VisibilityLimits.keyword(plan.aggregate())));

        // A replayed delivery can join while others still run: go on until a plan comes back empty, and
        // plan again if a replan signal arrives before the workflow has closed.
        while (true) {
            while (!plan.targets().isEmpty()) {
                deliverAll(plan);
                if (!replanRequested) {
                    // Every target of the plan has finished or paused: planning again would find nothing.
                    break;
                }
                plan = planAgain();
            }
            store("finish the outbox event").finish(outboxId);
            refreshVisibility();
            if (!replanRequested) {
                return;
            }
            plan = planAgain();
        }
    }

    private DeliveryPlan planAgain() {
        replanRequested = false;
        return store("plan the deliveries").plan(outboxId);
    }

    /** The database-only delivery calls, described in the Temporal UI's timeline by {@code summary}. */
    private DeliveryActivities store(String summary) {
        return Workflow.newLocalActivityStub(
                DeliveryActivities.class,
                LocalActivityOptions.newBuilder(LOCAL_STORE)
                        .setSummary(VisibilityLimits.summary(summary))
                        .build());
    }

    private void deliverAll(DeliveryPlan plan) {
        List<Promise<Void>> deliveries = new ArrayList<>();
        for (DeliveryTarget target : plan.targets()) {
            progress.put(target.deliveryId(), new Progress(target));
            // Each endpoint on its own branch: a slow or failing one never holds back the others.
            deliveries.add(Async.procedure(() -> deliverTo(target, plan.schedule())));
        }
        List<String> endpoints = VisibilityLimits.endpointNames(
                progress.values().stream().map(p -> p.target.endpointName()).toList());
        if (!endpoints.equals(shownEndpoints)) {
            Workflow.upsertTypedSearchAttributes(RelaySearchAttributes.ENDPOINTS.valueSet(endpoints));
            shownEndpoints = endpoints;
        }
        refreshVisibility();
        Promise.allOf(deliveries).get();
    }

    private void deliverTo(DeliveryTarget target, DeliverySchedule schedule) {
        Progress p = progress.get(target.deliveryId());
        int attempt = target.attemptsSoFar();
        if (target.nextAttemptAt() != null) {
            awaitRecordedAttemptTime(p, attempt, target.nextAttemptAt());
        }
        while (true) {
            awaitAdmission(p);
            attempt++;
            AttemptResult result = attempt(target, attempt);
            p.attempts = attempt;
            p.lastResult = result.summary();
            Settlement settlement = untilDatabaseAnswers(() -> controls.settle(target.deliveryId(), result, now()));
            switch (result.outcome()) {
                case DELIVERED -> {
                    p.finish(DeliveryPhase.DELIVERED, "delivered on attempt " + attempt + ": " + result.summary());
                    refreshVisibility();
                    finishedUnderControls(p);
                    return;
                }
                case GONE -> {
                    deadLetter(p, "endpoint answered 410 Gone; it has been disabled", result);
                    finishedUnderControls(p);
                    return;
                }
                case PERMANENT -> {
                    deadLetter(p, "endpoint answered " + result.summary() + "; not retried", result);
                    finishedUnderControls(p);
                    return;
                }
                case PAUSED -> {
                    // Nothing was sent; enabling the endpoint resumes the delivery through the dispatcher.
                    p.finish(DeliveryPhase.PAUSED, result.summary());
                    refreshVisibility();
                    return;
                }
                case RETRYABLE -> {
                    if (settlement.circuitOpen()) {
                        // The endpoint is down, not this event: wait for the circuit instead of spending the schedule.
                        waitForCircuit(p, attempt, result, settlement);
                        continue;
                    }
                    if (attempt >= schedule.maxAttempts()) {
                        deadLetter(p, "gave up after " + attempt + " attempts; last: " + result.summary(), result);
                        finishedUnderControls(p);
                        return;
                    }
                    waitBeforeRetry(p, schedule, attempt, result);
                }
            }
        }
    }

    /**
     * Asks the endpoint's controls until this delivery may attempt, waiting on durable timers (or an
     * {@code endpointReady} signal) meanwhile; waiting spends no attempt.
     */
    private void awaitAdmission(Progress p) {
        while (true) {
            Admission admission = untilDatabaseAnswers(() -> controls.admit(p.target.deliveryId(), now()));
            p.endpointId = admission.endpointId();
            p.ordered = admission.ordered();
            if (admission.go() && admission.waitMillis() <= 0) {
                return;
            }
            p.phase = DeliveryPhase.WAITING;
            p.details = admission.reason();
            refreshVisibility();
            int readyBefore = endpointReadySignals.getOrDefault(p.endpointId, 0);
            int retryNowBefore = retryNowSignals;
            Promise<Void> timer = Workflow.newTimer(
                    Duration.ofMillis(admission.waitMillis()),
                    TimerOptions.newBuilder().setSummary(admission.reason()).build());
            if (admission.go()) {
                // A reserved slot of the rate limit: go when it comes.
                Workflow.await(timer::isCompleted);
                return;
            }
            Workflow.await(() -> timer.isCompleted()
                    || retryNowSignals > retryNowBefore
                    || endpointReadySignals.getOrDefault(p.endpointId, 0) > readyBefore);
        }
    }

    private void waitForCircuit(Progress p, int attempt, AttemptResult result, Settlement settlement) {
        Instant nextProbe = settlement.nextProbeAt() == null ? null : Instant.parse(settlement.nextProbeAt());
        store("record the wait for " + p.target.endpointName() + "'s circuit")
                .scheduleRetry(p.target.deliveryId(), nextProbe, result.summary());
        p.phase = DeliveryPhase.WAITING;
        p.details = "attempt " + attempt + " failed: " + result.summary() + "; circuit open, next probe " + nextProbe;
        refreshVisibility();
    }

    private static Instant now() {
        return Instant.ofEpochMilli(Workflow.currentTimeMillis());
    }

    private void finishedUnderControls(Progress p) {
        if (p.ordered) {
            untilDatabaseAnswers(() -> {
                controls.finished(p.target.deliveryId());
                return null;
            });
        }
    }

    /**
     * Calls an endpoint control until the database answers: an outage of Relaybox's own database must not fail
     * the workflow, and the wait is a durable timer. A non-retryable failure (the row is gone) is final.
     */
    private static <T> T untilDatabaseAnswers(Functions.Func<T> call) {
        Duration wait = Duration.ofSeconds(1);
        while (true) {
            try {
                return call.apply();
            } catch (ActivityFailure e) {
                if (e.getCause() instanceof ApplicationFailure failure && failure.isNonRetryable()) {
                    throw e;
                }
                Workflow.sleep(wait);
                wait = wait.multipliedBy(2).compareTo(LONGEST_WAIT_FOR_RELAYBOX) > 0
                        ? LONGEST_WAIT_FOR_RELAYBOX
                        : wait.multipliedBy(2);
            }
        }
    }

    private AttemptResult attempt(DeliveryTarget target, int attempt) {
        // One activity call is one HTTP try: Temporal must not retry it behind the schedule's back.
        ActivityOptions.Builder options = ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .setSummary(VisibilityLimits.summary("attempt " + attempt + " to " + target.url()));
        // HTTP tries run on their own task queue and worker slots: receivers that use up their whole deadline
        // then hold only HTTP slots, never those of inbound events or of the database bookkeeping.
        options.setTaskQueue(
                OutboxDeliveryWorkflow.httpTaskQueue(Workflow.getInfo().getTaskQueue()));
        DeliveryActivities http = Workflow.newActivityStub(DeliveryActivities.class, options.build());
        Progress p = progress.get(target.deliveryId());
        Duration wait = Duration.ofSeconds(1);
        while (true) {
            p.phase = DeliveryPhase.SENDING;
            p.details = "attempt " + attempt + " in progress";
            refreshVisibility();
            try {
                return inFlightSlot(() -> http.attempt(target.deliveryId(), attempt));
            } catch (ActivityFailure e) {
                String cause =
                        e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
                if (!relayboxFault(e)) {
                    return new AttemptResult(
                            AttemptResult.Outcome.RETRYABLE, 0, -1, "Relaybox could not attempt: " + cause);
                }
                // Relaybox's own fault (its database away, most often), not the receiver's: the attempt is made
                // again once Relaybox can, and the schedule is not spent on it.
                Workflow.getMetricsScope().counter(DATABASE_WAITS_METRIC).inc(1);
                p.phase = DeliveryPhase.RETRYING;
                p.details = "attempt " + attempt + " could not be made: " + cause + "; trying again in "
                        + wait.toSeconds() + "s";
                refreshVisibility();
                Workflow.sleep(wait);
                wait = wait.multipliedBy(2).compareTo(LONGEST_WAIT_FOR_RELAYBOX) > 0
                        ? LONGEST_WAIT_FOR_RELAYBOX
                        : wait.multipliedBy(2);
            }
        }
    }

    /**
     * The attempt activity throws only for Relaybox's own faults (a non-retryable one is final: the row is gone). A
     * timeout is not counted as one: it may be a receiver that never finishes answering, which the schedule bounds.
     */
    private static boolean relayboxFault(ActivityFailure e) {
        return e.getCause() instanceof ApplicationFailure failure && !failure.isNonRetryable();
    }

    /** Runs one HTTP attempt once fewer than {@link #MAX_ATTEMPTS_IN_FLIGHT} of this event's are running. */
    private AttemptResult inFlightSlot(Functions.Func<AttemptResult> attempt) {
        Workflow.await(() -> attemptsInFlight < MAX_ATTEMPTS_IN_FLIGHT);
        attemptsInFlight++;
        try {
            return attempt.apply();
        } finally {
            attemptsInFlight--;
        }
    }

    private void waitBeforeRetry(Progress p, DeliverySchedule schedule, int attempt, AttemptResult result) {
        Duration wait = nextWait(schedule, attempt, result);
        Instant next =
                Instant.ofEpochMilli(Workflow.currentTimeMillis()).plus(wait).truncatedTo(ChronoUnit.SECONDS);
        store("record the retry of " + p.target.endpointName() + " at " + next)
                .scheduleRetry(p.target.deliveryId(), next, result.summary());
        p.phase = DeliveryPhase.RETRYING;
        p.nextAttemptAt = next.toString();
        p.details = "attempt " + attempt + " failed: " + result.summary() + "; next attempt " + next;
        refreshVisibility();

        int signalsBefore = retryNowSignals;
        Promise<Void> timer = Workflow.newTimer(
                wait,
                TimerOptions.newBuilder()
                        .setSummary(VisibilityLimits.summary(
                                "wait before attempt " + (attempt + 1) + " to " + p.target.url()))
                        .build());
        Workflow.await(() -> timer.isCompleted() || retryNowSignals > signalsBefore);
        p.nextAttemptAt = null;
    }

    /**
     * A run that takes over a delivery in the middle of its schedule (the engine lost the earlier run, or the
     * reconciler started it again) waits until the time the row records, then makes the next attempt in the count:
     * losing a run never resets the schedule. {@code retryNow} ends the wait as it does any other.
     */
    private void awaitRecordedAttemptTime(Progress p, int attemptsSoFar, Instant nextAttemptAt) {
        Duration wait = Duration.between(now(), nextAttemptAt);
        if (wait.isNegative() || wait.isZero()) {
            return;
        }
        p.phase = DeliveryPhase.RETRYING;
        p.nextAttemptAt = nextAttemptAt.toString();
        p.details = "attempt " + attemptsSoFar + " failed; next attempt " + nextAttemptAt + " (as recorded)";
        refreshVisibility();
        int signalsBefore = retryNowSignals;
        Promise<Void> timer = Workflow.newTimer(
                wait,
                TimerOptions.newBuilder()
                        .setSummary(VisibilityLimits.summary(
                                "wait before attempt " + (attemptsSoFar + 1) + " to " + p.target.url()))
                        .build());
        Workflow.await(() -> timer.isCompleted() || retryNowSignals > signalsBefore);
        p.nextAttemptAt = null;
    }

    private Duration nextWait(DeliverySchedule schedule, int attempt, AttemptResult result) {
        if (result.hasRetryAfter()) {
            // The receiver said when; clamp it so a hostile header cannot park a delivery for a year.
            return Duration.ofSeconds(Math.min(
                    result.retryAfterSeconds(), schedule.maxRetryAfter().toSeconds()));
        }
        Duration base = schedule.delays().get(attempt - 1);
        double spread = schedule.jitter() * (2 * random.nextDouble() - 1);
        return Duration.ofMillis(Math.round(base.toMillis() * (1 + spread)));
    }

    private void deadLetter(Progress p, String reason, AttemptResult result) {
        store("dead-letter the delivery to " + p.target.endpointName())
                .deadLetter(p.target.deliveryId(), reason, result.summary());
        p.finish(DeliveryPhase.DEAD_LETTERED, "dead-lettered: " + reason);
        refreshVisibility();
    }

    /** Keeps the Temporal UI's search attributes and current details in step with the deliveries. */
    private void refreshVisibility() {
        String status = overallStatus();
        long attempts =
                progress.values().stream().mapToInt(p -> p.attempts).max().orElse(0);
        // Each upsert is a history event: only a change is upserted.
        if (!status.equals(shownStatus) || attempts != shownAttempts) {
            Workflow.upsertTypedSearchAttributes(
                    RelaySearchAttributes.STATUS.valueSet(status), RelaySearchAttributes.ATTEMPTS.valueSet(attempts));
            shownStatus = status;
            shownAttempts = attempts;
        }
        Workflow.setCurrentDetails(
                progress.isEmpty()
                        ? "no enabled endpoint subscribes to this event"
                        : VisibilityLimits.details(progress.values().stream()
                                .map(p -> p.target.endpointName() + ": " + p.details)
                                .collect(Collectors.joining("\n"))));
    }

    private String overallStatus() {
        return DeliveryPhase.overall(
                        progress.values().stream().map(p -> p.phase).toList())
                .label();
    }

    @Override
    public void retryNow() {
        retryNowSignals++;
    }

    @Override
    public void endpointReady(UUID endpointId) {
        endpointReadySignals.merge(endpointId, 1, Integer::sum);
    }

    @Override
    public void replan() {
        replanRequested = true;
    }

    @Override
    public OutboxProgress status() {
        return new OutboxProgress(
                outboxId,
                overallStatus(),
                progress.values().stream()
                        .map(p -> new OutboxProgress.DeliveryProgress(
                                p.target.deliveryId(),
                                p.target.endpointName(),
                                p.phase.label(),
                                p.attempts,
                                p.lastResult,
                                p.nextAttemptAt))
                        .toList());
    }

    /** Mutable per-delivery state of this run, for queries and the UI. */
    private static final class Progress {
        final DeliveryTarget target;
        DeliveryPhase phase = DeliveryPhase.PENDING;
        String details = "waiting for the first attempt";
        int attempts;
        String lastResult;
        String nextAttemptAt;
        UUID endpointId;
        boolean ordered;

        Progress(DeliveryTarget target) {
            this.target = target;
            this.attempts = target.attemptsSoFar();
        }

        void finish(DeliveryPhase phase, String details) {
            this.phase = phase;
            this.details = details;
        }
    }
}
