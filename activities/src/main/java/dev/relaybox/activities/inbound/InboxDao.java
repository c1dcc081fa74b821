package dev.relaybox.activities.inbound;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Inbox rows and the entities they move. Row updates are guarded by status: {@code false} means the row was
 * already finished, by this run before a crash or by another run.
 */
public interface InboxDao {

    record InboxRow(UUID id, String partnerName, String partnerEventId, String eventType, String aggregateType,
            String aggregateId, String payload, String status, String outcome, int attempts, String lastError) {

        boolean finished() {
            return status.equals("PROCESSED") || status.equals("QUARANTINED");
        }

        boolean hasAggregate() {
            return aggregateType != null && !aggregateType.isBlank() && aggregateId != null && !aggregateId.isBlank();
        }

        /** {@code type:id}, or null when either is missing. */
        String aggregate() {
            return hasAggregate() ? aggregateType + ":" + aggregateId : null;
        }
    }

    record Entity(String state, int version) {}

    /** {@code workflowId} is the recorded id, null for rows whose id is derived. */
    record EventKey(String partnerName, String partnerEventId, String workflowId) {}

    @SqlQuery("""
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, payload::text AS payload,
                   status, outcome, attempts, last_error
              FROM webhook_inbox WHERE id = :id""")
    @RegisterConstructorMapper(InboxRow.class)
    Optional<InboxRow> find(@Bind("id") UUID inboxId);

    /** Re-reads the row and holds it until commit, so two runs for the same row take turns. */
    @SqlQuery("""
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, payload::text AS payload,
                   status, outcome, attempts, last_error
              FROM webhook_inbox WHERE id = :id FOR UPDATE""")
    @RegisterConstructorMapper(InboxRow.class)
    Optional<InboxRow> lock(@Bind("id") UUID inboxId);

    /**
     * Serialises every decision on one aggregate until commit, including for an entity that does not exist yet
     * (a row lock would have nothing to lock). Applications sharing the database take the same key to join in.
     */
    @SqlQuery("""
            SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtextextended(:aggregateType || ':' || :aggregateId, 0))) AS locked""")
    int lockAggregate(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId);

    @SqlQuery("SELECT state, version FROM entities WHERE aggregate_type = :aggregateType AND aggregate_id = :aggregateId")
    @RegisterConstructorMapper(Entity.class)
    Optional<Entity> entity(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId);

    @SqlUpdate("""
            INSERT INTO entities (aggregate_type, aggregate_id, state, version)
            VALUES (:aggregateType, :aggregateId, :state, 1)
            ON CONFLICT (aggregate_type, aggregate_id) DO NOTHING""")
    boolean createEntity(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId,
            @Bind("state") String state);

    @SqlUpdate("""
            UPDATE entities SET state = :state, version = version + 1, updated_at = now()
             WHERE aggregate_type = :aggregateType AND aggregate_id = :aggregateId AND version = :version""")
    boolean moveEntity(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId,
            @Bind("version") int version, @Bind("state") String state);

    /** Counts one decision; empty when the row is already finished. */
    @SqlQuery("""
            UPDATE webhook_inbox SET attempts = attempts + 1
             WHERE id = :id AND status IN ('RECEIVED', 'DEFERRED')
            RETURNING attempts""")
    Optional<Integer> countAttempt(@Bind("id") UUID inboxId);

    /** {@code note} goes to {@code last_error}: null when applied, why nothing changed when stale. */
    @SqlUpdate("""
            UPDATE webhook_inbox SET status = 'PROCESSED', outcome = :outcome, processed_at = now(), last_error = :note
             WHERE id = :id AND status IN ('RECEIVED', 'DEFERRED')""")
    boolean markProcessed(@Bind("id") UUID inboxId, @Bind("outcome") String outcome, @Bind("note") String note);

    /** Records when the row decides again at the latest (its recheck), so the reconciler knows when it is overdue. */
    @SqlUpdate("""
            UPDATE webhook_inbox SET status = 'DEFERRED', defer_reason = :reason,
                   next_recheck_at = now() + :recheckMillis * interval '1 millisecond'
             WHERE id = :id AND status IN ('RECEIVED', 'DEFERRED')""")
    boolean markDeferred(@Bind("id") UUID inboxId, @Bind("reason") String reason,
            @Bind("recheckMillis") long recheckMillis);

    /** When the current deferral began, on the workflow's clock; empty while none is recorded. */
    @SqlQuery("SELECT deferred_since FROM webhook_inbox WHERE id = :id AND deferred_since IS NOT NULL")
    Optional<Instant> deferredSince(@Bind("id") UUID inboxId);

    @SqlUpdate("""
            UPDATE webhook_inbox SET deferred_since = :since
             WHERE id = :id AND deferred_since IS NULL AND status IN ('RECEIVED', 'DEFERRED')""")
    boolean recordDeferralStart(@Bind("id") UUID inboxId, @Bind("since") Instant deferredSince);

    @SqlUpdate("""
            UPDATE webhook_inbox SET status = 'QUARANTINED', last_error = :lastError
             WHERE id = :id AND status IN ('RECEIVED', 'DEFERRED')""")
    boolean markQuarantined(@Bind("id") UUID inboxId, @Bind("lastError") String lastError);

    /** The aggregate's deferred events, oldest first: the ones to release after a transition applies. */
    @SqlQuery("""
            SELECT partner_name, partner_event_id, workflow_id FROM webhook_inbox
             WHERE aggregate_type = :aggregateType AND aggregate_id = :aggregateId AND status = 'DEFERRED'
             ORDER BY received_at""")
    @RegisterConstructorMapper(EventKey.class)
    List<EventKey> deferred(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId);

    /**
     * Call in the transaction that applies an event: the aggregate's deferred events are due to decide again now. The
     * release signal normally makes them do so at once; should it be lost with the engine's state, the reconciler
     * finds them overdue after its grace instead of at their next recheck.
     */
    @SqlUpdate("""
            UPDATE webhook_inbox SET next_recheck_at = now()
             WHERE aggregate_type = :aggregateType AND aggregate_id = :aggregateId AND status = 'DEFERRED'""")
    int markReleased(@Bind("aggregateType") String aggregateType, @Bind("aggregateId") String aggregateId);
}
