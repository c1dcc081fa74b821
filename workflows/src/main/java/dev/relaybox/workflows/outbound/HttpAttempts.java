package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.Backoff;
import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.VisibilityLimits;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The HTTP attempts of one outbox row's deliveries: one activity call is one try, with at most
 * {@link OutboxDeliveryWorkflowImpl#MAX_ATTEMPTS_IN_FLIGHT} in flight. The first attempt of a delivery nothing holds
 * is a local activity, made inside the workflow task that planned it: an event whose receiver answers at once costs one
 * workflow task, as Temporal's cheapest workflow does. A receiver slower than the workflow task may wait is handed
 * over, its request still in flight: a regular activity on the making worker's own HTTP task queue waits for the
 * answer, so the receiver is sent the webhook once. Every later attempt is a regular activity on the HTTP task queue,
 * which heartbeats. An attempt Relaybox itself could not make (its database away, most often, or its worker killed
 * mid-attempt) is made again once it can, and is not spent from the schedule.
 */
final class HttpAttempts {
    /**
     * The attempt activity heartbeats while it waits on a receiver: a worker that dies mid-attempt is noticed when its
     * heartbeats stop, in seconds, rather than when the attempt's deadline passes.
     */
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Beyond how long the first attempt may hold its workflow task (at most 5 seconds) and its database writes:
     * reached only when Relaybox's database does not answer, which is Relaybox's fault, never the receiver's.
     */
    private static final Duration FIRST_ATTEMPT_LIMIT = Duration.ofSeconds(30);

    private final DeliveryBoard board;
    private final EndpointGate gate;
    private final boolean attemptSettles;
    private final boolean firstAttemptsTogether;
    private int inFlight;

    /**
     * {@code revision}: the first plan's ({@link DeliveryPlan#revision}), which holds for the whole run: from
     * {@link DeliveryPlan#ATTEMPT_SETTLES} the attempt activity reports to the endpoint's controls itself (it is
     * {@code send}); from {@link DeliveryPlan#FIRST_ATTEMPTS_TOGETHER} first attempts are made together.
     */
    HttpAttempts(DeliveryBoard board, EndpointGate gate, int revision) {
        this.board = board;
        this.gate = gate;
        this.attemptSettles = revision >= DeliveryPlan.ATTEMPT_SETTLES;
        this.firstAttemptsTogether = revision >= DeliveryPlan.FIRST_ATTEMPTS_TOGETHER;
    }

    boolean attemptSettles() {
        return attemptSettles;
    }

    /**
     * Makes attempt number {@code attempt}: the receiver's answer, already recorded and reported to the controls.
     * {@code first}: the delivery's first attempt, which nothing held; {@code madeTogether}: that attempt, already
     * made with the others' ({@link #firstAttempts}), or null.
     */
    SettledAttempt attempt(TrackedDelivery delivery, int attempt, boolean first, SettledAttempt madeTogether) {
        SettledAttempt made = make(delivery, attempt, first && attemptSettles, madeTogether);
        // Release 1.0's attempt, or one that never finished, is reported once its slot is free.
        return made.reported()
                ? made
                : new SettledAttempt(made.result(), gate.reportAttempt(delivery, made.result()), false);
    }

    /**
     * The first attempts of {@code deliveries} (at most {@link OutboxDeliveryWorkflowImpl#MAX_ATTEMPTS_IN_FLIGHT}),
     * their requests in flight at once from one local activity: each answer, by delivery, as its own local activity
     * would have given it. Where that activity failed, or could not make one of them, the delivery makes its own;
     * so does every delivery of a run whose plan predates making them together.
     */
    Map<UUID, SettledAttempt> firstAttempts(List<TrackedDelivery> deliveries) {
        if (!firstAttemptsTogether || deliveries.isEmpty()) {
            return Map.of();
        }
        List<FirstAttempt> attempts = new ArrayList<>();
        for (TrackedDelivery delivery : deliveries) {
            attempts.add(new FirstAttempt(delivery.id(), delivery.target.attemptsSoFar() + 1));
            board.show(
                    delivery,
                    DeliveryPhase.SENDING,
                    "attempt " + (delivery.target.attemptsSoFar() + 1) + " in progress");
        }
        List<SettledAttempt> answers;
        try {
            answers = localStub(firstAttemptsSummary(deliveries)).sendFirst(attempts);
        } catch (ActivityFailure e) {
            return Map.of();
        }
        Map<UUID, SettledAttempt> byDelivery = new HashMap<>();
        for (int i = 0; i < attempts.size(); i++) {
            if (i < answers.size() && answers.get(i) != null) {
                byDelivery.put(attempts.get(i).deliveryId(), answers.get(i));
            }
        }
        return byDelivery;
    }

    private static String firstAttemptsSummary(List<TrackedDelivery> deliveries) {
        TrackedDelivery first = deliveries.get(0);
        return deliveries.size() == 1
                ? "attempt " + (first.target.attemptsSoFar() + 1) + " to " + first.target.url()
                : "first attempts to " + deliveries.size() + " endpoints";
    }

    private SettledAttempt make(TrackedDelivery delivery, int attempt, boolean local, SettledAttempt madeTogether) {
        String summary = "attempt " + attempt + " to " + delivery.target.url();
        Backoff backoff = Backoff.untilRelayboxRecovers();
        while (true) {
            DeliveryActivities http = local ? localStub(summary) : stub(summary);
            board.show(delivery, DeliveryPhase.SENDING, "attempt " + attempt + " in progress");
            try {
                if (inFlight >= OutboxDeliveryWorkflowImpl.MAX_ATTEMPTS_IN_FLIGHT) {
                    board.publish();
                }
                Workflow.await(() -> inFlight < OutboxDeliveryWorkflowImpl.MAX_ATTEMPTS_IN_FLIGHT);
                inFlight++;
                try {
                    if (!attemptSettles) {
                        return SettledAttempt.unreported(http.attempt(delivery.id(), attempt));
                    }
                    // What was made together is used once: an attempt made again is made alone.
                    SettledAttempt made =
                            local && madeTogether != null ? madeTogether : http.send(delivery.id(), attempt);
                    return made.handedOver() == null
                            ? made
                            : stub(summary, made.handedOver()).send(delivery.id(), attempt);
                } finally {
                    inFlight--;
                }
            } catch (ActivityFailure e) {
                String cause =
                        e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
                // The request's own deadline ends a slow receiver's first attempt, handed over or not: its timeout is
                // a database that did not answer, or the worker that held the request gone.
                boolean timedOutOnRelaybox = local && e.getCause() instanceof TimeoutFailure;
                if (!relayboxFault(e) && !timedOutOnRelaybox) {
                    return SettledAttempt.unreported(new AttemptResult(
                            AttemptResult.Outcome.RETRYABLE, 0, -1, "Relaybox could not attempt: " + cause));
                }
                if (timedOutOnRelaybox || !(e.getCause() instanceof TimeoutFailure)) {
                    // Its worker gone is no wait for the database.
                    Workflow.getMetricsScope()
                            .counter(DatabaseCalls.WAITS_METRIC)
                            .inc(1);
                }
                // Made again as a regular activity, which a worker that dies mid-attempt cannot hold up.
                local = false;
                board.showWaiting(
                        delivery,
                        DeliveryPhase.RETRYING,
                        "attempt " + attempt + " could not be made: " + cause + "; trying again in "
                                + backoff.nextWait().toSeconds() + "s");
                backoff.sleep("attempt " + attempt + " to " + delivery.target.url() + " made again after: " + cause);
            }
        }
    }

    /**
     * The attempt activity throws only for Relaybox's own faults (a non-retryable one is final: the row is gone), and
     * stops heartbeating only when its worker is gone. The deadline is not counted as one: it may be a receiver that
     * never finishes answering, which the schedule bounds. Histories recorded before the heartbeat have no heartbeat
     * timeout in them, so they replay down the same branches as before.
     */
    private static boolean relayboxFault(ActivityFailure e) {
        return e.getCause() instanceof ApplicationFailure failure && !failure.isNonRetryable()
                || e.getCause() instanceof TimeoutFailure timeout
                        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_HEARTBEAT;
    }

    /** No retries: a failed first attempt goes back to {@link #make}, which makes it again as a regular activity. */
    private static DeliveryActivities localStub(String summary) {
        return Workflow.newLocalActivityStub(
                DeliveryActivities.class,
                LocalActivityOptions.newBuilder()
                        .setStartToCloseTimeout(FIRST_ATTEMPT_LIMIT)
                        .setRetryOptions(
                                RetryOptions.newBuilder().setMaximumAttempts(1).build())
                        .setSummary(VisibilityLimits.summary(summary))
                        .build());
    }

    private static DeliveryActivities stub(String summary) {
        // HTTP tries run on their own task queue and worker slots: receivers that use up their whole deadline then
        // hold only HTTP slots, never those of inbound events or of the database bookkeeping.
        return Workflow.newActivityStub(
                DeliveryActivities.class,
                options(summary)
                        .setTaskQueue(OutboxDeliveryWorkflow.httpTaskQueue(
                                Workflow.getInfo().getTaskQueue()))
                        .build());
    }

    /**
     * On the queue of the one worker whose request is in flight. Not picked up in time, that worker is gone, and the
     * attempt made again finds any answer it recorded.
     */
    private static DeliveryActivities stub(String summary, SettledAttempt.HandOver handOver) {
        return Workflow.newActivityStub(
                DeliveryActivities.class,
                options(summary)
                        .setTaskQueue(handOver.taskQueue())
                        .setScheduleToStartTimeout(handOver.pickedUpWithin())
                        .build());
    }

    /** Temporal must not retry an attempt behind the schedule's back. */
    private static ActivityOptions.Builder options(String summary) {
        return ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .setSummary(VisibilityLimits.summary(summary));
    }
}
