package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The statements that decide {@code webhook_inbox} rows and move {@code entities}: the decisions and their guarded
 * updates, releases, dead-letter replay and retention. The intake's insert is {@link InboxIntake}'s, the dispatcher's
 * claims {@link InboxDispatchStore}'s, the admin and producer reads {@link InboxQueries}'.
 *
 * <p>Status changes are guarded: each UPDATE moves a row to one {@link InboxState} only from the states
 * {@link InboxState#from()} allows, and answers {@code false} (or empty) when the row was already elsewhere, moved
 * by this run before a crash or by another run. Attach it to a handle ({@code handle.attach(InboxStore.class)}) to
 * run inside the caller's transaction, or use {@code jdbi.onDemand(InboxStore.class)} for one statement at a time.
 */
public interface InboxStore extends SqlObject {

    record InboxRow(
            UUID id,
            String partnerName,
            String partnerEventId,
            String eventType,
            String aggregateType,
            String aggregateId,
            String payload,
            InboxState status,
            Outcome outcome,
            int attempts,
            String lastError,
            Instant receivedAt,
            String traceparent) {

        public boolean finished() {
            return status.finished();
        }

        /** The aggregate, or null when the event lacks its type or id (such an event is rejected). */
        public AggregateKey aggregate() {
            return aggregateType == null || aggregateType.isBlank() || aggregateId == null || aggregateId.isBlank()
                    ? null
                    : new AggregateKey(aggregateType, aggregateId);
        }
    }

    record Entity(String state, int version) {}

    @SqlQuery("""
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, payload::text AS payload,
                   status, outcome, attempts, last_error, received_at, traceparent
              FROM webhook_inbox WHERE id = :id""")
    @RegisterConstructorMapper(InboxRow.class)
    Optional<InboxRow> find(@Bind("id") UUID inboxId);

    /** Re-reads the row and holds it until commit, so two runs for the same row take turns. */
    @SqlQuery("""
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, payload::text AS payload,
                   status, outcome, attempts, last_error, received_at, traceparent
              FROM webhook_inbox WHERE id = :id FOR UPDATE""")
    @RegisterConstructorMapper(InboxRow.class)
    Optional<InboxRow> lock(@Bind("id") UUID inboxId);

    /**
     * Serialises every decision on one aggregate until commit, including for an entity that does not exist yet
     * (a row lock would have nothing to lock). Applications sharing the database take the same key
     * ({@code hashtextextended('type:id', 0)}) to join in.
     */
    default void lockAggregate(AggregateKey aggregate) {
        getHandle()
                .createQuery("SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtextextended(:aggregate, 0))) AS locked")
                .bind("aggregate", aggregate.toString())
                .mapTo(int.class)
                .one();
    }

    default Optional<Entity> entity(AggregateKey aggregate) {
        return getHandle()
                .createQuery("""
                        SELECT state, version FROM entities WHERE aggregate_type = :type AND aggregate_id = :id""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .map((rs, ctx) -> new Entity(rs.getString("state"), rs.getInt("version")))
                .findOne();
    }

    default boolean createEntity(AggregateKey aggregate, String state) {
        return getHandle()
                        .createUpdate("""
                        INSERT INTO entities (aggregate_type, aggregate_id, state, version)
                        VALUES (:type, :id, :state, 1)
                        ON CONFLICT (aggregate_type, aggregate_id) DO NOTHING""")
                        .bind("type", aggregate.type())
                        .bind("id", aggregate.id())
                        .bind("state", state)
                        .execute()
                == 1;
    }

    /** Guarded by the version read: false when another writer moved the entity meanwhile. */
    default boolean moveEntity(AggregateKey aggregate, int version, String state) {
        return getHandle()
                        .createUpdate("""
                        UPDATE entities SET state = :state, version = version + 1, updated_at = now()
                         WHERE aggregate_type = :type AND aggregate_id = :id AND version = :version""")
                        .bind("type", aggregate.type())
                        .bind("id", aggregate.id())
                        .bind("version", version)
                        .bind("state", state)
                        .execute()
                == 1;
    }

    /** Counts one decision; empty when the row is already finished. */
    default Optional<Integer> countAttempt(UUID inboxId) {
        return getHandle()
                .createQuery("""
                        UPDATE webhook_inbox SET attempts = attempts + 1
                         WHERE id = :id AND status = ANY(:unfinished)
                        RETURNING attempts""")
                .bind("id", inboxId)
                .bindArray("unfinished", String.class, (Object[]) InboxState.names(InboxState.unfinished()))
                .mapTo(Integer.class)
                .findOne();
    }

    /** {@code note} goes to {@code last_error}: null when applied, why nothing changed when stale. */
    default boolean markProcessed(UUID inboxId, Outcome outcome, String note) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET status = :to, outcome = :outcome, processed_at = now(), last_error = :note
                         WHERE id = :id AND status = ANY(:from)""")
                        .bind("to", InboxState.PROCESSED.name())
                        .bindArray("from", String.class, (Object[]) InboxState.names(InboxState.PROCESSED.from()))
                        .bind("id", inboxId)
                        .bind("outcome", outcome.name())
                        .bind("note", note)
                        .execute()
                == 1;
    }

    /**
     * Records when the row decides again at the latest, so the reconciler knows when it is overdue: its recheck, or
     * its deferral deadline when that comes first (the workflow's timer waits for the earlier of the two as well). A
     * first deferral has no recorded start yet; it began now, and {@link #recordDeferralStart} makes that exact.
     */
    default boolean markDeferred(UUID inboxId, String reason, InboxSettings settings) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET status = :to, defer_reason = :reason,
                               next_recheck_at = LEAST(now() + :recheckMillis * interval '1 millisecond',
                                                       COALESCE(deferred_since, now())
                                                           + :maxDeferralMillis * interval '1 millisecond')
                         WHERE id = :id AND status = ANY(:from)""")
                        .bind("recheckMillis", settings.recheckInterval().toMillis())
                        .bind("maxDeferralMillis", settings.maxDeferral().toMillis())
                        .bind("to", InboxState.DEFERRED.name())
                        .bindArray("from", String.class, (Object[]) InboxState.names(InboxState.DEFERRED.from()))
                        .bind("id", inboxId)
                        .bind("reason", reason)
                        .execute()
                == 1;
    }

    default boolean markQuarantined(UUID inboxId, String lastError) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET status = :to, last_error = :lastError
                         WHERE id = :id AND status = ANY(:from)""")
                        .bind("to", InboxState.QUARANTINED.name())
                        .bindArray("from", String.class, (Object[]) InboxState.names(InboxState.QUARANTINED.from()))
                        .bind("id", inboxId)
                        .bind("lastError", lastError)
                        .execute()
                == 1;
    }

    /** When the current deferral began, on the workflow's clock; empty while none is recorded. */
    @SqlQuery("SELECT deferred_since FROM webhook_inbox WHERE id = :id AND deferred_since IS NOT NULL")
    Optional<Instant> deferredSince(@Bind("id") UUID inboxId);

    /** Records when the deferral began, once; the recorded recheck moves up to the deadline if it fell after it. */
    default boolean recordDeferralStart(UUID inboxId, Instant deferredSince, Duration maxDeferral) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET deferred_since = :since,
                               next_recheck_at = LEAST(next_recheck_at, :deadline)
                         WHERE id = :id AND deferred_since IS NULL AND status = ANY(:unfinished)""")
                        .bind("id", inboxId)
                        .bind("since", deferredSince)
                        .bind("deadline", deferredSince.plus(maxDeferral))
                        .bindArray("unfinished", String.class, (Object[]) InboxState.names(InboxState.unfinished()))
                        .execute()
                == 1;
    }

    /** An event of the same partner and aggregate received before another and not yet decided. */
    record Undecided(String partnerEventId, String eventType) {}

    /**
     * The partner's events of the aggregate received before {@code inboxId} and not yet decided, oldest first: a
     * forwarded event waits for the routed ones among them, so that an aggregate's events leave in arrival order.
     */
    default List<Undecided> earlierUndecided(UUID inboxId, String partner, AggregateKey aggregate) {
        return getHandle()
                .createQuery("""
                        SELECT e.partner_event_id, e.event_type FROM webhook_inbox e, webhook_inbox me
                         WHERE me.id = :id AND e.partner_name = :partner AND e.aggregate_type = :type
                           AND e.aggregate_id = :aggregateId AND e.status = ANY(:unfinished)
                           AND (e.received_at, e.id) < (me.received_at, me.id)
                         ORDER BY e.received_at, e.id""")
                .bind("id", inboxId)
                .bind("partner", partner)
                .bind("type", aggregate.type())
                .bind("aggregateId", aggregate.id())
                .bindArray("unfinished", String.class, (Object[]) InboxState.names(InboxState.unfinished()))
                .map((rs, ctx) -> new Undecided(rs.getString("partner_event_id"), rs.getString("event_type")))
                .list();
    }

    /**
     * Workflow ids of the aggregate's DEFERRED events, oldest first: whom to signal {@code release} after a
     * transition of that aggregate applied.
     */
    default List<String> deferredWorkflowIds(AggregateKey aggregate) {
        return getHandle()
                .createQuery("""
                        SELECT partner_name, partner_event_id, workflow_id FROM webhook_inbox
                         WHERE aggregate_type = :type AND aggregate_id = :id AND status = :deferred
                         ORDER BY received_at""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .bind("deferred", InboxState.DEFERRED.name())
                .map((rs, ctx) -> InboxEventWorkflow.workflowIdOf(
                        rs.getString("workflow_id"), rs.getString("partner_name"), rs.getString("partner_event_id")))
                .list();
    }

    /**
     * Call in the transaction that applies an event: the aggregate's deferred events are due to decide again now. The
     * release signal normally makes them do so at once; should it be lost with the engine's state, the reconciler
     * finds them overdue after its grace instead of at their next recheck.
     */
    default int markReleased(AggregateKey aggregate) {
        return getHandle()
                .createUpdate("""
                        UPDATE webhook_inbox SET next_recheck_at = now()
                         WHERE aggregate_type = :type AND aggregate_id = :id AND status = :deferred""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .bind("deferred", InboxState.DEFERRED.name())
                .execute();
    }

    /**
     * An operator's release: the deferred event is due to decide again now. Recorded before its workflow is told, so
     * that should the start of a new run fail, the reconciler finds the row overdue after its grace. False, and nothing
     * changed, unless the event is deferred.
     */
    default boolean markDueNow(UUID inboxId) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET next_recheck_at = now()
                         WHERE id = :id AND status = :deferred""")
                        .bind("id", inboxId)
                        .bind("deferred", InboxState.DEFERRED.name())
                        .execute()
                == 1;
    }

    // Dead letters and retention ------------------------------------------------------------------------------------

    /**
     * Puts replayed quarantined rows back as if just received and undispatched, so the dispatcher starts a fresh
     * workflow; rows no longer quarantined are left alone. Returns how many were reopened.
     */
    default int reopenQuarantined(List<UUID> inboxIds) {
        return getHandle()
                .createUpdate("""
                        UPDATE webhook_inbox SET status = :to, outcome = NULL, attempts = 0, defer_reason = NULL,
                               last_error = NULL, processed_at = NULL, dispatched_at = NULL, deferred_since = NULL
                         WHERE id = ANY(:ids) AND status = ANY(:from)""")
                .bind("to", InboxState.RECEIVED.name())
                .bindArray("from", String.class, (Object[]) InboxState.names(InboxState.RECEIVED.from()))
                .bindArray("ids", UUID.class, inboxIds)
                .execute();
    }

    /**
     * A corrected replay: a quarantined row's payload, and the event type and aggregate id read from it, replace the
     * received ones. The partner event id and body SHA-256 stay, so the partner's original sent again is a duplicate.
     */
    default boolean replacePayload(UUID inboxId, String payload, String eventType, String aggregateId) {
        return getHandle()
                        .createUpdate("""
                        UPDATE webhook_inbox SET payload = CAST(:payload AS jsonb), event_type = :eventType,
                               aggregate_id = :aggregateId
                         WHERE id = :id AND status = :quarantined""")
                        .bind("payload", payload)
                        .bind("eventType", eventType)
                        .bind("aggregateId", aggregateId)
                        .bind("id", inboxId)
                        .bind("quarantined", InboxState.QUARANTINED.name())
                        .execute()
                == 1;
    }

    /**
     * Deletes up to {@code limit} PROCESSED rows finished before {@code processedBefore}, oldest first, skipping rows
     * another transaction holds and rows a dead letter still refers to. Returns how many it deleted.
     */
    default int purgeProcessed(Instant processedBefore, int limit) {
        return getHandle()
                .createUpdate("""
                        DELETE FROM webhook_inbox WHERE id IN (
                            SELECT i.id FROM webhook_inbox i
                             WHERE i.status = :processed AND i.processed_at < :before
                               AND NOT EXISTS (SELECT 1 FROM dead_letters dl
                                                WHERE dl.source = :source AND dl.reference = i.id)
                             ORDER BY i.processed_at
                             LIMIT :limit
                             FOR UPDATE SKIP LOCKED)""")
                .bind("processed", InboxState.PROCESSED.name())
                .bind("source", DeadLetterSource.INBOX.name())
                .bind("before", processedBefore)
                .bind("limit", limit)
                .execute();
    }
}
