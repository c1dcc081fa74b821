package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.Backoff;
import dev.relaybox.workflows.TimerOrSignal;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * The delivery workflow's side of the {@link EndpointControlActivities} protocol: before each attempt a delivery is
 * admitted (waiting on durable timers, or until the endpoint is reported ready, spends no attempt); after it, the
 * attempt is reported; a finished delivery to an ordered endpoint lets the next event of its aggregate go.
 */
final class EndpointGate {
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

    private final Map<UUID, Integer> endpointReadySignals = new HashMap<>();
    private final DeliveryBoard board;
    private final IntSupplier retryNowSignals;
    private final ResumableWaits waits;

    EndpointGate(DeliveryBoard board, IntSupplier retryNowSignals, ResumableWaits waits) {
        this.board = board;
        this.retryNowSignals = retryNowSignals;
        this.waits = waits;
    }

    /** Returns once the delivery may attempt: its circuit, its aggregate's order, its slots and its rate allow it. */
    void admit(TrackedDelivery delivery) {
        while (true) {
            GateDecision decision = untilDatabaseAnswers(() -> controls.admit(delivery.id(), now()));
            delivery.endpointId = decision.endpointId();
            delivery.ordered = decision.ordered();
            if (decision.go() && decision.waitMillis() <= 0) {
                return;
            }
            board.showWaiting(delivery, DeliveryPhase.WAITING, decision.reason());
            Duration wait = Duration.ofMillis(decision.waitMillis());
            if (decision.go()) {
                // A reserved slot of the rate limit: go when it comes.
                TimerOrSignal.sleep(wait, decision.reason());
                return;
            }
            int readyBefore = readySignals(delivery.endpointId);
            int retryNowBefore = retryNowSignals.getAsInt();
            // The controls decide again for a fresh run: a reserved slot of the rate limit (above) they do not.
            waits.await(
                    wait,
                    decision.reason(),
                    () -> retryNowSignals.getAsInt() > retryNowBefore
                            || readySignals(delivery.endpointId) > readyBefore);
        }
    }

    /** Reports how the attempt went; the answer says whether the endpoint's circuit is open now. */
    CircuitState reportAttempt(TrackedDelivery delivery, AttemptResult result) {
        return untilDatabaseAnswers(() -> controls.settle(delivery.id(), result, now()));
    }

    /** The delivery is delivered or dead-lettered: an ordered endpoint's next event of the aggregate may go. */
    void finished(TrackedDelivery delivery) {
        if (delivery.ordered) {
            untilDatabaseAnswers(() -> {
                controls.finished(delivery.id());
                return null;
            });
        }
    }

    /** The {@code endpointReady} signal: deliveries waiting for the endpoint ask again at once. */
    void endpointReady(UUID endpointId) {
        endpointReadySignals.merge(endpointId, 1, Integer::sum);
    }

    private int readySignals(UUID endpointId) {
        return endpointReadySignals.getOrDefault(endpointId, 0);
    }

    /**
     * Calls an endpoint control until the database answers: an outage of Relaybox's own database must not fail
     * the workflow, and the wait is a durable timer. A non-retryable failure (the row is gone) is final.
     */
    private static <T> T untilDatabaseAnswers(Functions.Func<T> call) {
        Backoff backoff = Backoff.untilRelayboxRecovers();
        while (true) {
            try {
                return call.apply();
            } catch (ActivityFailure e) {
                if (e.getCause() instanceof ApplicationFailure failure && failure.isNonRetryable()) {
                    throw e;
                }
                backoff.sleep("waiting for Relaybox's database to answer");
            }
        }
    }

    private static Instant now() {
        return Instant.ofEpochMilli(Workflow.currentTimeMillis());
    }
}
