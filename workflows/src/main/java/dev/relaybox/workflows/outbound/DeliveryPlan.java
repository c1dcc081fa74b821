package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.TimerOrSignal;
import java.util.List;

/**
 * What an outbox row needs delivered: the deliveries not yet finished, the schedule in force when the plan was made,
 * and how the workflow carries it out. All three are recorded in history, so neither a config change nor a new
 * release alters a running workflow's replay.
 *
 * @param revision how the workflow carries the plan out, read from its first plan: {@link #ADMIT_AND_SETTLE_APART}
 *     in histories recorded before the field existed, {@link #CURRENT} in every plan made now. It decides the order
 *     of recorded commands as {@code Workflow.getVersion} would, without a marker of its own in every history.
 */
public record DeliveryPlan(
        String eventType, String aggregate, List<DeliveryTarget> targets, DeliverySchedule schedule, int revision) {
    /**
     * Release 1.0: every attempt asked the endpoint's controls before and reported to them after, in local
     * activities of their own; search attributes were upserted at every step, and the row finished in one more.
     */
    public static final int ADMIT_AND_SETTLE_APART = 0;

    /**
     * The attempt reports to the controls itself and finishes the row when it delivers its last delivery; a target
     * the controls had nothing to hold for makes its first attempt without asking; search attributes are published
     * once each time the workflow starts to wait, and at its end.
     */
    public static final int ATTEMPT_SETTLES = 1;

    /**
     * {@link #ATTEMPT_SETTLES}, and the first attempts of the targets that go at once are made together, in one local
     * activity ({@link DeliveryActivities#sendFirst}) before each delivery goes its own way.
     */
    public static final int FIRST_ATTEMPTS_TOGETHER = 2;

    /**
     * {@link #FIRST_ATTEMPTS_TOGETHER}, and a wait cut short by a signal ({@code retryNow}, {@code endpointReady})
     * cancels its timer instead of leaving it to fire to nothing later, unless the timer was about to fire
     * ({@link TimerOrSignal#ABOUT_TO_FIRE}).
     */
    public static final int WAITS_CANCEL_THEIR_TIMERS = 3;

    public static final int CURRENT = WAITS_CANCEL_THEIR_TIMERS;

    public DeliveryPlan {
        targets = List.copyOf(targets);
    }
}
