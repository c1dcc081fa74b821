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

    /**
     * {@code plan}: made by the starter in the transaction that claimed the row; null (and in every history recorded
     * before the parameter existed) when the workflow is to read the row and plan itself.
     */
    @WorkflowMethod(name = TYPE)
    void process(UUID inboxId, InboxPlan plan);

    /**
     * Another event of the same aggregate was applied: decide again now rather than at the next recheck. A
     * release while the event is not deferred is harmless.
     */
    @SignalMethod
    void release();

    @QueryMethod
    InboxStatus status();

    /**
     * {@code inbox-<partner>-<event id>}, or {@code inbox-<partner>~sha256-<hex of the event id's SHA-256>} when that
     * would exceed {@value #MAX_WORKFLOW_ID_LENGTH} characters. The partner name is percent-encoded except for
     * letters, digits, {@code _} and {@code .}, so the first {@code -} or {@code ~} after {@code inbox-} always ends
     * it: partner {@code shop} with event {@code eu-1} and partner {@code shop-eu} with event {@code 1} get two ids,
     * and no event id can spell a hashed one. Called by dispatchers and the reconciler, never inside workflow code.
     */
    static String workflowId(String partner, String partnerEventId) {
        String escapedPartner = escapePartner(partner);
        String plain = "inbox-" + escapedPartner + "-" + partnerEventId;
        if (plain.length() <= MAX_WORKFLOW_ID_LENGTH) {
            return plain;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(partnerEventId.getBytes(StandardCharsets.UTF_8));
            return "inbox-" + escapedPartner + "~sha256-" + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The row's workflow id: the one recorded on it ({@code webhook_inbox.workflow_id}, set for rows stored before
     * ids were unambiguous, whose workflows may still run under the earlier id), else {@link #workflowId}.
     */
    static String workflowIdOf(String recordedWorkflowId, String partner, String partnerEventId) {
        return recordedWorkflowId != null ? recordedWorkflowId : workflowId(partner, partnerEventId);
    }

    private static String escapePartner(String partner) {
        StringBuilder escaped = new StringBuilder(partner.length());
        for (byte b : partner.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || c == '_' || c == '.')) {
                escaped.append(c);
            } else {
                escaped.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
            }
        }
        return escaped.toString();
    }
}
