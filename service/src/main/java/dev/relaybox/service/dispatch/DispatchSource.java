package dev.relaybox.service.dispatch;

import dev.relaybox.store.DeadLetterSource;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * A table whose rows each become one workflow. The dispatcher claims new rows, the reconciler re-drives
 * dispatched rows that are not finished; both only call {@link #start}, which must be idempotent.
 */
public interface DispatchSource {
    /** Later than any attempt or recheck time a row records. */
    Instant LATER_THAN_ANY_RECORDED_TIME = Instant.parse("9999-01-01T00:00:00Z");

    /**
     * A row ready to start: its id and what the workflow start needs. {@code peer} is null when the workflow finds it
     * out itself (an outbox row's endpoints). {@code fairnessKey}: whose turn its workflow's tasks take in the engine's
     * task queue (the tenant of an outbox row, empty for the operator's own; the partner of an inbound event), so that
     * one tenant's or partner's backlog does not queue another's work behind it. {@code summary} and {@code details}
     * are the workflow's static summary and details in the Temporal UI: what the row is, and the ids that lead an
     * operator from there to the row. {@code unstartable} says why the row can never start (found by the source, e.g.
     * an oversized payload), null when nothing is known against it. {@code mayBeRunning}: a workflow of the row may be
     * running already, and is to be told it came back (a replayed row); false for a row never taken up. {@code plan}:
     * what the source decided for the workflow in the transaction that claimed the row (an outbox row's first delivery
     * plan), handed to its start; null where the workflow decides for itself.
     */
    record Row(
            UUID id,
            String workflowId,
            String eventType,
            String aggregate,
            String peer,
            String fairnessKey,
            String summary,
            String details,
            String unstartable,
            boolean mayBeRunning,
            Object plan) {

        /**
         * The details' last line: where the admin page tells this row's story. The Temporal UI renders details as
         * Markdown with typographic quotes, so they hold no quotes or apostrophes.
         */
        static String storyLine(UUID id) {
            return "its story on the admin page: /admin/story?q=" + id;
        }

        /** A line naming the OpenTelemetry trace the row belongs to; none when it belongs to none. */
        static String traceLine(String traceId) {
            return traceId == null ? "" : "trace " + traceId + "\n";
        }
    }

    String name();

    /** Locks up to {@code limit} undispatched rows, oldest first, skipping rows another instance holds. */
    List<Row> claimUndispatched(Handle handle, int limit);

    void markDispatched(Handle handle, List<UUID> ids);

    /** Undoes {@link #markDispatched} for rows whose start failed for a passing reason: the next pass tries again. */
    void markUndispatched(Handle handle, List<UUID> ids);

    /**
     * Takes a row that can never start out of the flow, finished, with the reason where operators see it; the
     * caller records the dead letter in the same transaction. False when the row is already finished.
     */
    boolean quarantine(Handle handle, UUID id, String reason);

    /** The direction its dead letters are recorded under. */
    DeadLetterSource deadLetterSource();

    /**
     * Locks up to {@code limit} dispatched, unfinished rows last dispatched before {@code before} whose work was due
     * before it (an attempt or recheck the row records) or which made no progress since; oldest first. Rows waiting
     * for a time after {@code before} are not returned. The caller calls {@link #markDispatched} to move them to the
     * back and {@link #restart}s them once that committed.
     */
    List<Row> claimStranded(Handle handle, Instant before, int limit);

    /** The row with this id as a start needs it; empty when there is none. */
    Optional<Row> find(Handle handle, UUID id);

    /**
     * As {@link #claimStranded}, but whatever time the rows wait for: every dispatched, unfinished row last dispatched
     * before {@code before}. For a Temporal that lost every execution at once.
     */
    List<Row> claimUnfinished(Handle handle, Instant before, int limit);

    /** Starts the row's workflow; returns normally when it is already running. */
    void start(Row row);

    /**
     * Starts the row's workflow again unless it is still running, which is left alone (not signalled). True when a
     * new run started.
     */
    boolean restart(Row row);
}
