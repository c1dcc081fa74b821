package dev.relaybox.workflows.inbound;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Processes one stored inbox event: proposes its transition to the aggregate's state machine and applies it,
 * waits while it is deferred, ignores it as stale, or quarantines it as a dead letter. Workflow id:
 * {@link #workflowId}.
 *
 * <p>Safe to start again for the same row, while or after another run worked on it: every database change is a
 * guarded update on the row's status, and a row already PROCESSED or QUARANTINED is reported, never changed.
 */
@WorkflowInterface
public interface InboxEventWorkflow {
    String TYPE = "InboxEvent";

    /** Temporal accepts longer ids, but operators type and read these; hashing keeps them bounded. */
    int MAX_WORKFLOW_ID_LENGTH = 200;

    @WorkflowMethod(name = TYPE)
    void process(UUID inboxId);

    /**
     * Another event of the same aggregate was applied: decide again now rather than at the next recheck. A
     * release while the event is not deferred is harmless.
     */
    @SignalMethod
    void release();

    @QueryMethod
    InboxStatus status();

    /**
     * {@code inbox-<partner>-<event id>}, or {@code inbox-<partner>-sha256-<hex of the event id's SHA-256>} when
     * that would exceed {@value #MAX_WORKFLOW_ID_LENGTH} characters. Called by dispatchers and the reconciler, never
     * inside workflow code.
     */
    static String workflowId(String partner, String partnerEventId) {
        String plain = "inbox-" + partner + "-" + partnerEventId;
        if (plain.length() <= MAX_WORKFLOW_ID_LENGTH) {
            return plain;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(partnerEventId.getBytes(StandardCharsets.UTF_8));
            return "inbox-" + partner + "-sha256-" + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
