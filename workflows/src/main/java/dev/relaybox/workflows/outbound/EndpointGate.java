package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.TimerOrSignal;
import dev.relaybox.workflows.WorkflowVisibility;
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
    // Local activities, as every database call of a workflow: asked before and after every attempt, they must not
    // double the round trips through the server.
    private final DatabaseCalls database = new DatabaseCalls(
                    DatabaseCalls.OtherFailures.WAITED_OUT, WorkflowVisibility::details)
            .pausingBetweenRoundsInEarlierRuns();

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
            GateDecision decision = database.call(
                    EndpointControlActivities.class,
                    "ask the controls of " + delivery.endpointName(),
                    controls -> controls.admit(delivery.id(), now()));
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
        return database.call(
                EndpointControlActivities.class,
                "report the attempt to " + delivery.endpointName(),
                controls -> controls.settle(delivery.id(), result, now()));
    }

    /** The delivery is delivered or dead-lettered: an ordered endpoint's next event of the aggregate may go. */
    void finished(TrackedDelivery delivery) {
        if (delivery.ordered) {
            database.run(
                    EndpointControlActivities.class,
                    "let the aggregate's next event go to " + delivery.endpointName(),
                    controls -> controls.finished(delivery.id()));
        }
    }

    /** The {@code endpointReady} signal: deliveries waiting for the endpoint ask again at once. */
    void endpointReady(UUID endpointId) {
        endpointReadySignals.merge(endpointId, 1, Integer::sum);
    }

    private int readySignals(UUID endpointId) {
        return endpointReadySignals.getOrDefault(endpointId, 0);
    }

    private static Instant now() {
        return Instant.ofEpochMilli(Workflow.currentTimeMillis());
    }
}
