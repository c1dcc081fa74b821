package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.WorkflowVisibility;
import java.time.Instant;
import java.util.UUID;

/**
 * Where the inbox workflow stands, and what that shows: the status query, the search attributes and the current
 * details. Every step goes through {@link #show}, so the Temporal UI never lags behind the workflow.
 */
final class InboxBoard {
    private final WorkflowVisibility visibility = new WorkflowVisibility();
    private InboxState state = InboxState.RECEIVED;
    private String outcome;
    private int attempts;
    private String reason;
    private String waitingFor;
    private Instant nextRecheckAt;

    void describe(InboxPlan plan) {
        visibility.describe("inbound", plan.partner(), plan.eventType(), plan.aggregate());
    }

    /** The decision's outcome, attempts, reason and what it waits for, as the status query reports them. */
    void decided(InboxOutcome decision) {
        outcome = decision.outcome().name();
        attempts = decision.attempts();
        reason = decision.reason();
        waitingFor = decision.waitingFor();
    }

    void reason(String reason) {
        this.reason = reason;
    }

    void show(InboxState state, String details) {
        this.state = state;
        visibility.show(state.searchValue(), attempts, details);
    }

    /** New details, in the state the event is in. */
    void show(String details) {
        show(state, details);
    }

    /** A step that changes no search attribute: the details alone. */
    void showDetails(String details) {
        WorkflowVisibility.details(details);
    }

    void nextRecheckAt(Instant at) {
        nextRecheckAt = at;
    }

    InboxStatus status(UUID inboxId) {
        return new InboxStatus(inboxId, state.searchValue(), outcome, attempts, reason, waitingFor, nextRecheckAt);
    }
}
