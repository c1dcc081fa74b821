package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.WorkflowVisibility;
import java.time.Instant;
import java.util.UUID;

/**
 * Where the inbox workflow stands, and what that shows: the status query, the search attributes and the current
 * details. Every step goes through {@link #show}, so the Temporal UI never lags behind the workflow.
 */
final class InboxBoard {
    private WorkflowVisibility visibility = new WorkflowVisibility();
    private InboxState state = InboxState.RECEIVED;
    private String outcome;
    private int attempts;
    private String reason;
    private String waitingFor;
    private Instant nextRecheckAt;

    /** From now on, search attributes change only at {@link #showWaiting} and {@link #publish}. */
    void publishWhenWaiting() {
        visibility = WorkflowVisibility.publishedWhenWaiting();
    }

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

    /** {@link #show}, where the workflow starts to wait for a timer or a signal: what it waits for is searchable. */
    void showWaiting(InboxState state, String details) {
        show(state, details);
        publish();
    }

    /** New details, in the state the event is in. */
    void show(String details) {
        show(state, details);
    }

    /** New details where the workflow starts to wait, in the state the event is in. */
    void showWaiting(String details) {
        showWaiting(state, details);
    }

    /** Upserts what changed and was not shown yet. */
    void publish() {
        visibility.publish();
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
