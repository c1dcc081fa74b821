package dev.relaybox.activities.statemachine;

import java.util.Objects;

/**
 * What happens to one inbound event given the entity's current state.
 *
 * @param outcome     what the inbox processor does with the event
 * @param targetState the entity's new state; set only when {@link Outcome#APPLIED}
 * @param emit        the outbound event type to write; only when {@link Outcome#APPLIED}, and may be null then
 * @param waitingFor  the event type that has to apply first; set only when {@link Outcome#DEFERRED}
 * @param reason      plain words for logs, dead letters and operators
 */
public record Decision(Outcome outcome, String targetState, String emit, String waitingFor, String reason) {

    public enum Outcome {
        /** The transition holds: update the entity, emit, and release the aggregate's deferred events. */
        APPLIED,
        /** An earlier event is still missing but can arrive: wait for a release and try again. */
        DEFERRED,
        /** The entity is already at or past the target: mark processed and change nothing. */
        STALE,
        /** The transition can never apply: quarantine as a dead letter. */
        REJECTED
    }

    public Decision {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(reason, "reason");
    }

    static Decision applied(String targetState, String emit, String reason) {
        return new Decision(Outcome.APPLIED, targetState, emit, null, reason);
    }

    static Decision deferred(String waitingFor, String reason) {
        return new Decision(Outcome.DEFERRED, null, null, waitingFor, reason);
    }

    static Decision stale(String reason) {
        return new Decision(Outcome.STALE, null, null, null, reason);
    }

    static Decision rejected(String reason) {
        return new Decision(Outcome.REJECTED, null, null, null, reason);
    }
}
