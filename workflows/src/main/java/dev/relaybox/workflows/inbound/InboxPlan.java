package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.TimerOrSignal;
import java.time.Duration;
import java.time.Instant;

/**
 * What the workflow knows before deciding: the row's identity for the Temporal UI, and the deferral settings in
 * force when the plan was made.
 *
 * @param partner        the partner that sent the event, as named in the configuration
 * @param eventType      the partner's event type, or null when the payload had none
 * @param aggregate      {@code type:id}, or null when either is missing (such an event is rejected)
 * @param recheckInterval how long a deferred event waits for a release before deciding again anyway
 * @param maxDeferral    how long an event may stay deferred before it is dead-lettered
 * @param deferredSince  when the row's current deferral began, as an earlier run recorded it; null when none did
 * @param revision       how the workflow shows its steps, read from its plan: {@link #UPSERTED_AT_EVERY_STEP} in
 *                       histories recorded before the field existed, {@link #CURRENT} in every plan made now. It
 *                       decides the order of recorded commands as {@code Workflow.getVersion} would, without a
 *                       marker of its own in every history.
 */
public record InboxPlan(
        String partner,
        String eventType,
        String aggregate,
        Duration recheckInterval,
        Duration maxDeferral,
        Instant deferredSince,
        int revision) {
    /** Release 1.0: what the workflow is about, then every change of its state, each upserted as it happened. */
    public static final int UPSERTED_AT_EVERY_STEP = 0;

    /**
     * What the workflow is about is set when it is started; its state is upserted once where it starts to wait, and
     * at its end.
     */
    public static final int PUBLISHED_WHEN_WAITING = 1;

    /**
     * {@link #PUBLISHED_WHEN_WAITING}, and a release that comes within {@link TimerOrSignal#ABOUT_TO_FIRE} of the
     * recheck leaves the recheck's timer to fire rather than cancelling it.
     */
    public static final int RECHECK_ABOUT_TO_FIRE_KEPT = 2;

    public static final int CURRENT = RECHECK_ABOUT_TO_FIRE_KEPT;
}
