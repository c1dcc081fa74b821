package dev.relaybox.activities.statemachine;

import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import java.util.Objects;

/**
 * What happens to one inbound event given the entity's current state; the {@link Outcome} is the one the workflow
 * is told.
 *
 * @param outcome     what the inbox processor does with the event
 * @param targetState the entity's new state; set only when {@link Outcome#APPLIED}
 * @param emit        the outbound event type to write; only when {@link Outcome#APPLIED}, and may be null then
 * @param waitingFor  the event type that has to apply first; set only when {@link Outcome#DEFERRED}
 * @param reason      plain words for logs, dead letters and operators
 */
public record Decision(Outcome outcome, String targetState, String emit, String waitingFor, String reason) {

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
