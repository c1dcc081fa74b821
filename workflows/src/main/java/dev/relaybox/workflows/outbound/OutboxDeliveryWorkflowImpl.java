package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.RelaySearchAttributes;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;

public final class OutboxDeliveryWorkflowImpl implements OutboxDeliveryWorkflow {
    static final String HTTP_TASK_QUEUE_CHANGE = "http-attempts-own-task-queue";

    // Bookkeeping activities touch only the database: retry them until it is back.
    private final DeliveryActivities store = Workflow.newActivityStub(DeliveryActivities.class, ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setMaximumInterval(Duration.ofMinutes(1))
                    .setMaximumAttempts(20)
                    .build())
            .build());

    private final Map<UUID, Progress> progress = new LinkedHashMap<>();
    private final Random random = Workflow.newRandom();
    private UUID outboxId;
    private boolean cancelled;
    private boolean replanRequested;
    private int retryNowSignals;

    @Override
    public void deliver(UUID outboxId) {
        this.outboxId = outboxId;
        DeliveryPlan plan = planAgain();
        Workflow.upsertTypedSearchAttributes(
                RelaySearchAttributes.DIRECTION.valueSet("outbound"),
                RelaySearchAttributes.EVENT_TYPE.valueSet(plan.eventType()),
                RelaySearchAttributes.AGGREGATE.valueSet(plan.aggregate()));

        // A replayed delivery can join while others still run: go on until a plan comes back empty, and
        // plan again if a replan signal arrives before the workflow has closed.
        while (true) {
            while (!plan.targets().isEmpty() && !cancelled) {
                deliverAll(plan);
                plan = planAgain();
            }
            store.finish(outboxId);
            refreshVisibility();
            if (!replanRequested || cancelled) {
                return;
            }
            plan = planAgain();
        }
    }

    private DeliveryPlan planAgain() {
        replanRequested = false;
        return store.plan(outboxId);
    }

    private void deliverAll(DeliveryPlan plan) {
        List<Promise<Void>> deliveries = new ArrayList<>();
        for (DeliveryTarget target : plan.targets()) {
            progress.put(target.deliveryId(), new Progress(target));
            // Each endpoint on its own branch: a slow or failing one never holds back the others.
            deliveries.add(Async.procedure(() -> deliverTo(target, plan.schedule())));
        }
        Workflow.upsertTypedSearchAttributes(RelaySearchAttributes.PEER.valueSet(progress.values().stream()
                .map(p -> p.target.url()).distinct().collect(Collectors.joining(" "))));
        refreshVisibility();
        Promise.allOf(deliveries).get();
    }

    private void deliverTo(DeliveryTarget target, DeliverySchedule schedule) {
        Progress p = progress.get(target.deliveryId());
        int attempt = target.attemptsSoFar();
        while (true) {
            if (cancelled) {
                store.cancel(target.deliveryId());
                p.finish("cancelled", "cancelled by signal");
                refreshVisibility();
                return;
            }
            attempt++;
            AttemptResult result = attempt(target, attempt);
            p.attempts = attempt;
            p.lastResult = result.summary();
            switch (result.outcome()) {
                case DELIVERED -> {
                    p.finish("delivered", "delivered on attempt " + attempt + ": " + result.summary());
                    refreshVisibility();
                    return;
                }
                case GONE -> {
                    deadLetter(p, "endpoint answered 410 Gone; it has been disabled", result);
                    return;
                }
                case PERMANENT -> {
                    deadLetter(p, "endpoint answered " + result.summary() + "; not retried", result);
                    return;
                }
                case PAUSED -> {
                    // Nothing was sent; enabling the endpoint resumes the delivery through the dispatcher.
                    p.finish("paused", result.summary());
                    refreshVisibility();
                    return;
                }
                case RETRYABLE -> {
                    if (attempt >= schedule.maxAttempts()) {
                        deadLetter(p, "gave up after " + attempt + " attempts; last: " + result.summary(), result);
                        return;
                    }
                    waitBeforeRetry(p, schedule, attempt, result);
                }
            }
        }
    }

    private AttemptResult attempt(DeliveryTarget target, int attempt) {
        // One activity call is one HTTP try: Temporal must not retry it behind the schedule's back.
        ActivityOptions.Builder options = ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .setSummary("attempt " + attempt + " to " + target.url());
        // HTTP tries run on their own task queue and worker slots: receivers that use up their whole deadline
        // then hold only HTTP slots, never those of inbound events or of the database bookkeeping.
        if (Workflow.getVersion(HTTP_TASK_QUEUE_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
            options.setTaskQueue(OutboxDeliveryWorkflow.httpTaskQueue(Workflow.getInfo().getTaskQueue()));
        }
        DeliveryActivities http = Workflow.newActivityStub(DeliveryActivities.class, options.build());
        Progress p = progress.get(target.deliveryId());
        p.status = "sending";
        p.details = "attempt " + attempt + " in progress";
        refreshVisibility();
        try {
            return http.attempt(target.deliveryId(), attempt);
        } catch (ActivityFailure e) {
            String cause = e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
            return new AttemptResult(AttemptResult.Outcome.RETRYABLE, 0, -1, "Relaybox could not attempt: " + cause);
        }
    }

    private void waitBeforeRetry(Progress p, DeliverySchedule schedule, int attempt, AttemptResult result) {
        Duration wait = nextWait(schedule, attempt, result);
        Instant next = Instant.ofEpochMilli(Workflow.currentTimeMillis()).plus(wait).truncatedTo(ChronoUnit.SECONDS);
        store.scheduleRetry(p.target.deliveryId(), next, result.summary());
        p.status = "retrying";
        p.nextAttemptAt = next.toString();
        p.details = "attempt " + attempt + " failed: " + result.summary() + "; next attempt " + next;
        refreshVisibility();

        int signalsBefore = retryNowSignals;
        Promise<Void> timer = Workflow.newTimer(wait, TimerOptions.newBuilder()
                .setSummary("wait before attempt " + (attempt + 1) + " to " + p.target.url())
                .build());
        Workflow.await(() -> timer.isCompleted() || cancelled || retryNowSignals > signalsBefore);
        p.nextAttemptAt = null;
    }

    private Duration nextWait(DeliverySchedule schedule, int attempt, AttemptResult result) {
        if (result.hasRetryAfter()) {
            // The receiver said when; clamp it so a hostile header cannot park a delivery for a year.
            return Duration.ofSeconds(Math.min(result.retryAfterSeconds(), schedule.maxRetryAfter().toSeconds()));
        }
        Duration base = schedule.delays().get(attempt - 1);
        double spread = schedule.jitter() * (2 * random.nextDouble() - 1);
        return Duration.ofMillis(Math.round(base.toMillis() * (1 + spread)));
    }

    private void deadLetter(Progress p, String reason, AttemptResult result) {
        store.deadLetter(p.target.deliveryId(), reason, result.summary());
        p.finish("dead_lettered", "dead-lettered: " + reason);
        refreshVisibility();
    }

    /** Keeps the Temporal UI's search attributes and current details in step with the deliveries. */
    private void refreshVisibility() {
        Workflow.upsertTypedSearchAttributes(
                RelaySearchAttributes.STATUS.valueSet(overallStatus()),
                RelaySearchAttributes.ATTEMPTS.valueSet((long) progress.values().stream()
                        .mapToInt(p -> p.attempts).max().orElse(0)));
        Workflow.setCurrentDetails(progress.isEmpty()
                ? "no enabled endpoint subscribes to this event"
                : progress.values().stream()
                        .map(p -> p.target.endpointName() + ": " + p.details)
                        .collect(Collectors.joining("\n")));
    }

    private String overallStatus() {
        List<String> statuses = progress.values().stream().map(p -> p.status).toList();
        for (String status : List.of("retrying", "sending", "pending", "dead_lettered", "paused", "cancelled")) {
            if (statuses.contains(status)) {
                return status.equals("sending") ? "pending" : status;
            }
        }
        return "delivered";
    }

    @Override
    public void retryNow() {
        retryNowSignals++;
    }

    @Override
    public void replan() {
        replanRequested = true;
    }

    @Override
    public void cancel() {
        cancelled = true;
    }

    @Override
    public OutboxStatus status() {
        return new OutboxStatus(outboxId, overallStatus(), progress.values().stream()
                .map(p -> new OutboxStatus.DeliveryStatus(p.target.deliveryId(), p.target.endpointName(), p.status,
                        p.attempts, p.lastResult, p.nextAttemptAt))
                .toList());
    }

    /** Mutable per-delivery state of this run, for queries and the UI. */
    private static final class Progress {
        final DeliveryTarget target;
        String status = "pending";
        String details = "waiting for the first attempt";
        int attempts;
        String lastResult;
        String nextAttemptAt;

        Progress(DeliveryTarget target) {
            this.target = target;
            this.attempts = target.attemptsSoFar();
        }

        void finish(String status, String details) {
            this.status = status;
            this.details = details;
        }
    }
}
