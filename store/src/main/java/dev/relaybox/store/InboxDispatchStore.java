package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.SqlObject;

/**
 * The dispatcher's statements on {@code webhook_inbox}: claiming rows whose workflows are to be started (new ones,
 * and stranded ones whose workflow may be lost), marking them dispatched, and quarantining a row that can never
 * start. Claims lock with {@code FOR UPDATE SKIP LOCKED}, so any number of dispatchers share the work.
 */
public interface InboxDispatchStore extends SqlObject {

    /**
     * A row whose workflow is to be started; {@code aggregate} is null when the event lacks one, {@code deferredSince}
     * when no deferral of the row is recorded. {@code replayed}: the row was quarantined and its dead letter replayed,
     * so the run that quarantined it may not have closed yet.
     */
    record Dispatchable(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            AggregateKey aggregate,
            String workflowId,
            Instant deferredSince,
            boolean replayed,
            String traceId) {}

    /** What a start needs of a row; a row with a dead letter was quarantined and replayed. */
    String DISPATCHABLE = """
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id,
                   deferred_since,
                   EXISTS (SELECT 1 FROM dead_letters d WHERE d.source = 'INBOX' AND d.reference = webhook_inbox.id)
                       AS replayed,
                   """ + Columns.TRACE_ID + """
              FROM webhook_inbox
            """;

    /** The oldest rows no dispatcher has started yet, locked until commit; other dispatchers skip them. */
    default List<Dispatchable> claimUndispatched(int limit) {
        return getHandle()
                .createQuery(DISPATCHABLE + """
                         WHERE dispatched_at IS NULL
                         ORDER BY received_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("limit", limit)
                .map(InboxDispatchStore::dispatchable)
                .list();
    }

    /** Unfinished rows dispatched before {@code before}: their workflow may be lost and is started again. */
    default List<Dispatchable> claimStranded(Instant before, int limit) {
        return claimStranded(before, before, limit);
    }

    /** As {@link #claimStranded(Instant, int)}, with rechecks due before {@code dueBefore}. */
    default List<Dispatchable> claimStranded(Instant before, Instant dueBefore, int limit) {
        return getHandle()
                .createQuery(DISPATCHABLE + """
                         WHERE status = ANY(:unfinished) AND dispatched_at < :before
                           -- A received row is decided as soon as its workflow runs; a deferred one is waiting for its
                           -- recheck or release (rows deferred before the time was recorded count as due).
                           AND (status <> :deferred OR next_recheck_at IS NULL OR next_recheck_at < :dueBefore)
                         ORDER BY dispatched_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bindArray("unfinished", String.class, (Object[]) InboxState.names(InboxState.unfinished()))
                .bind("deferred", InboxState.DEFERRED.name())
                .bind("before", before)
                .bind("dueBefore", dueBefore)
                .bind("limit", limit)
                .map(InboxDispatchStore::dispatchable)
                .list();
    }

    /** One row as a workflow start needs it, e.g. for an operator's release of an event whose workflow is gone. */
    default Optional<Dispatchable> dispatchable(UUID id) {
        return getHandle()
                .createQuery(DISPATCHABLE + """
                         WHERE id = :id""")
                .bind("id", id)
                .map(InboxDispatchStore::dispatchable)
                .findOne();
    }

    default void markDispatched(List<UUID> ids) {
        getHandle()
                .createUpdate("UPDATE webhook_inbox SET dispatched_at = now() WHERE id = ANY(:ids)")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    default void markUndispatched(List<UUID> ids) {
        getHandle()
                .createUpdate("UPDATE webhook_inbox SET dispatched_at = NULL WHERE id = ANY(:ids)")
                .bindArray("ids", UUID.class, ids)
                .execute();
    }

    /** A row whose workflow can never start: quarantined and taken out of dispatch; false when already finished. */
    default boolean quarantineUndispatchable(UUID id, String reason) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET status = :to, last_error = :reason, dispatched_at = now()
                         WHERE id = :id AND status = ANY(:from)""")
                        .bind("to", InboxState.QUARANTINED.name())
                        .bindArray("from", String.class, (Object[]) InboxState.names(InboxState.QUARANTINED.from()))
                        .bind("id", id)
                        .bind("reason", reason)
                        .execute()
                == 1;
    }

    private static Dispatchable dispatchable(ResultSet rs, StatementContext ctx) throws SQLException {
        String partner = rs.getString("partner_name");
        String partnerEventId = rs.getString("partner_event_id");
        return new Dispatchable(
                rs.getObject("id", UUID.class),
                partner,
                partnerEventId,
                rs.getString("event_type"),
                AggregateKey.ofNullable(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                InboxEventWorkflow.workflowIdOf(rs.getString("workflow_id"), partner, partnerEventId),
                Columns.instant(rs, "deferred_since"),
                rs.getBoolean("replayed"),
                rs.getString("trace_id"));
    }
}
