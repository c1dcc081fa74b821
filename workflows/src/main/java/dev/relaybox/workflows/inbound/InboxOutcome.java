package dev.relaybox.workflows.inbound;

import java.util.List;

/**
 * What one decision did, already committed.
 *
 * @param reason          plain words for operators: "order.paid moves the entity from created to paid",
 *                        "waiting for order.paid: entity is created"
 * @param waitingFor      the event type that has to apply first; only when {@link Outcome#DEFERRED}
 * @param entityState     the aggregate's state after the decision; {@code none} when it does not exist
 * @param attempts        decisions made for this row so far, this one included
 * @param alreadyFinished the row was finished by an earlier run; nothing was changed this time
 * @param release         workflow ids of the aggregate's deferred events, to signal after an APPLIED
 */
public record InboxOutcome(
        Outcome outcome,
        String reason,
        String waitingFor,
        String entityState,
        int attempts,
        boolean alreadyFinished,
        List<String> release) {

    public enum Outcome {
        /** The entity moved; the row is PROCESSED; the deferred events of the aggregate should decide again. */
        APPLIED,
        /** An earlier event is still missing; the row is DEFERRED until a release or the next recheck. */
        DEFERRED,
        /** The entity is already at or past the target; the row is PROCESSED and nothing changed. */
        STALE,
        /** The event can never apply or is malformed; the row is QUARANTINED with a dead letter. */
        REJECTED
    }

    public InboxOutcome {
        release = release == null ? List.of() : List.copyOf(release);
    }
}
