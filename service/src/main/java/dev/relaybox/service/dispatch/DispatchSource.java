package dev.relaybox.service.dispatch;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * A table whose rows each become one workflow. The dispatcher claims new rows, the reconciler re-drives
 * dispatched rows that are not finished; both only call {@link #start}, which must be idempotent.
 */
public interface DispatchSource {

    /**
     * A row ready to start: its id and what the workflow start needs. {@code peer} is null when the
     * workflow finds it out itself (an outbox row's endpoints).
     */
    record Row(UUID id, String workflowId, String eventType, String aggregate, String peer, String summary) {}

    String name();

    /** Locks up to {@code limit} undispatched rows, oldest first, skipping rows another instance holds. */
    List<Row> claimUndispatched(Handle handle, int limit);

    void markDispatched(Handle handle, List<UUID> ids);

    /**
     * Locks up to {@code limit} dispatched, unfinished rows last dispatched before {@code before}, oldest
     * first; the caller restarts them and then calls {@link #markDispatched} to move them to the back.
     */
    List<Row> claimStranded(Handle handle, Instant before, int limit);

    /** Starts the row's workflow; returns normally when it is already running. */
    void start(Row row);
}
