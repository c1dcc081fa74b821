package dev.relaybox.workflows.inbound;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;
import java.util.UUID;

/**
 * The database side of processing one inbox event. Every method is idempotent: updates are guarded by the row's
 * status, so a run repeated after a worker crash, or a second workflow for the same row, changes nothing twice.
 */
@ActivityInterface(namePrefix = "Inbox")
public interface InboxActivities {
    /**
     * Reads what the workflow shows operators about the row and the settings in force now (recorded in history, so
     * a configuration change never alters a running workflow's replay). Fails without retry when the row is missing.
     */
    @ActivityMethod
    InboxPlan plan(UUID inboxId);

    /**
     * In one transaction: locks the aggregate, counts an attempt, asks the state machine, and records the outcome.
     * APPLIED moves the entity, marks the row PROCESSED and writes the transition's outbound event, all or nothing;
     * DEFERRED marks the row DEFERRED with the reason; STALE marks it PROCESSED as a no-op; REJECTED quarantines it
     * with a dead letter. A row already PROCESSED or QUARANTINED is left alone and its recorded outcome returned.
     */
    @ActivityMethod
    InboxOutcome decide(UUID inboxId);

    /**
     * Records when the row's deferral began, unless a start is already recorded, so the maximum deferral keeps
     * counting across continue-as-new and restarts. Does nothing to a finished row.
     */
    @ActivityMethod
    void recordDeferralStart(UUID inboxId, Instant deferredSince);

    /** Quarantines the row with a dead letter unless it is already finished; a second call records nothing. */
    @ActivityMethod
    void deadLetter(UUID inboxId, String reason, String lastError);
}
