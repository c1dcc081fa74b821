package dev.relaybox.activities.inbound;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.store.Cursor;
import dev.relaybox.activities.store.Page;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * Every statement on {@code webhook_inbox} and {@code entities}: the intake's insert, the dispatcher's claims, the
 * decisions and their guarded updates, dead-letter replay, retention, and the admin and producer reads.
 *
 * <p>Status changes are guarded: each UPDATE moves a row to one {@link InboxState} only from the states
 * {@link InboxState#from()} allows, and answers {@code false} (or empty) when the row was already elsewhere, moved
 * by this run before a crash or by another run. Attach it to a handle ({@code handle.attach(InboxStore.class)}) to
 * run inside the caller's transaction, or use {@code jdbi.onDemand(InboxStore.class)} for one statement at a time.
 */
public interface InboxStore extends SqlObject {

    // Intake --------------------------------------------------------------------------------------------------------

    /**
     * A verified webhook as the intake stores it; a missing type or aggregate id is stored and rejected later.
     *
     * @param bodySha256 the SHA-256 of the body exactly as received, which tells a resend from a different event
     *     under the same id
     */
    record ReceivedEvent(
            String partner,
            String eventId,
            String eventType,
            String aggregateType,
            String aggregateId,
            String payloadJson,
            byte[] bodySha256) {

        /** An event whose body is {@code payloadJson} itself, as fixtures and internal callers store it. */
        public ReceivedEvent(
                String partner,
                String eventId,
                String eventType,
                String aggregateType,
                String aggregateId,
                String payloadJson) {
            this(
                    partner,
                    eventId,
                    eventType,
                    aggregateType,
                    aggregateId,
                    payloadJson,
                    sha256(payloadJson.getBytes(StandardCharsets.UTF_8)));
        }

        public static byte[] sha256(byte[] body) {
            try {
                return MessageDigest.getInstance("SHA-256").digest(body);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has SHA-256", e);
            }
        }
    }

    /** What became of an arriving event. */
    enum Arrival {
        /** Stored now. */
        NEW,
        /** Stored earlier with the same body (or before bodies were hashed): nothing more to do. */
        DUPLICATE,
        /** Stored earlier with a different body: this one is refused, the first one stays. */
        CONFLICT
    }

    /** The row that holds the event under its id, and what became of this arrival. */
    record Receipt(UUID id, Arrival arrival) {
        public boolean duplicate() {
            return arrival == Arrival.DUPLICATE;
        }
    }

    /**
     * Stores the event once per partner and event id: a second arrival, concurrent or later, finds the first row,
     * and is a duplicate when its body hashes the same and a conflict when not. A payload PostgreSQL refuses throws
     * the driver's error (SQLSTATE class 22) and stores nothing.
     */
    default Receipt receive(ReceivedEvent event) {
        Optional<UUID> inserted = getHandle()
                .createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type,
                                                   aggregate_id, payload, body_sha256, signature_verified)
                        VALUES (:partner, :eventId, :eventType, :aggregateType, :aggregateId, CAST(:payload AS jsonb),
                                :bodySha256, true)
                        ON CONFLICT (partner_name, partner_event_id) DO NOTHING
                        RETURNING id""")
                .bind("partner", event.partner())
                .bind("eventId", event.eventId())
                .bind("eventType", event.eventType())
                .bind("aggregateType", event.aggregateType())
                .bind("aggregateId", event.aggregateId())
                .bind("payload", event.payloadJson())
                .bind("bodySha256", event.bodySha256())
                .mapTo(UUID.class)
                .findOne();
        if (inserted.isPresent()) {
            return new Receipt(inserted.get(), Arrival.NEW);
        }
        return getHandle()
                .createQuery("""
                        SELECT id, body_sha256 FROM webhook_inbox
                         WHERE partner_name = :partner AND partner_event_id = :eventId""")
                .bind("partner", event.partner())
                .bind("eventId", event.eventId())
                .map((rs, ctx) -> {
                    byte[] stored = rs.getBytes("body_sha256");
                    boolean same = stored == null || MessageDigest.isEqual(stored, event.bodySha256());
                    return new Receipt(rs.getObject("id", UUID.class), same ? Arrival.DUPLICATE : Arrival.CONFLICT);
                })
                .findOne()
                // Purged by retention between the two statements: as the conflicting insert found it, a duplicate.
                .orElseGet(() -> new Receipt(null, Arrival.DUPLICATE));
    }

    // Dispatch ------------------------------------------------------------------------------------------------------

    /** A row whose workflow is to be started; {@code aggregate} is null when the event lacks one. */
    record Dispatchable(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            AggregateKey aggregate,
            String workflowId) {}

    /** The oldest rows no dispatcher has started yet, locked until commit; other dispatchers skip them. */
    default List<Dispatchable> claimUndispatched(int limit) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id
                          FROM webhook_inbox
                         WHERE dispatched_at IS NULL
                         ORDER BY received_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("limit", limit)
                .map(InboxStore::dispatchable)
                .list();
    }

    /** Unfinished rows dispatched before {@code before}: their workflow may be lost and is started again. */
    default List<Dispatchable> claimStranded(Instant before, int limit) {
        return claimStranded(before, before, limit);
    }

    /** As {@link #claimStranded(Instant, int)}, with rechecks due before {@code dueBefore}. */
    default List<Dispatchable> claimStranded(Instant before, Instant dueBefore, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id
                          FROM webhook_inbox
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
                .map(InboxStore::dispatchable)
                .list();
    }

    /** One row as a workflow start needs it, e.g. for an operator's release of an event whose workflow is gone. */
    default Optional<Dispatchable> dispatchable(UUID id) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, workflow_id
                          FROM webhook_inbox
                         WHERE id = :id""")
                .bind("id", id)
                .map(InboxStore::dispatchable)
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
                InboxEventWorkflow.workflowIdOf(rs.getString("workflow_id"), partner, partnerEventId));
    }

    // Decisions -----------------------------------------------------------------------------------------------------

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
            String lastError) {

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
                .bind("source", DeadLetters.Source.INBOX.name())
                .bind("before", processedBefore)
                .bind("limit", limit)
                .execute();
    }

    // Admin and producer reads --------------------------------------------------------------------------------------

    /** An inbox row as operators see it; {@code workflowId} is the one its workflow runs (or ran) under. */
    record InboxEvent(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            AggregateKey aggregate,
            InboxState status,
            Outcome outcome,
            int attempts,
            String deferReason,
            String lastError,
            Instant receivedAt,
            Instant processedAt,
            String workflowId) {

        /** Where the next page starts when this row is the last one shown. */
        public Cursor position() {
            return new Cursor(receivedAt, id);
        }
    }

    /** The admin list's filters; a null one filters nothing. */
    record InboxFilter(
            InboxState status,
            String eventType,
            String partner,
            AggregateKey aggregate,
            Instant since,
            Instant until) {}

    /**
     * Rows matching {@code filter}, newest first by {@code (received_at, id)}, starting after {@code after} (null for
     * the first page). Only the filters given become conditions, so each query can use the index that fits it.
     */
    default Page<InboxEvent> list(InboxFilter filter, Cursor after, int limit) {
        List<String> conditions = new ArrayList<>();
        Map<String, Object> values = new LinkedHashMap<>();
        if (filter.status() != null) {
            conditions.add("status = :status");
            values.put("status", filter.status().name());
        }
        if (filter.eventType() != null) {
            conditions.add("event_type = :eventType");
            values.put("eventType", filter.eventType());
        }
        if (filter.partner() != null) {
            conditions.add("partner_name = :partner");
            values.put("partner", filter.partner());
        }
        if (filter.aggregate() != null) {
            conditions.add("aggregate_type = :aggregateType AND aggregate_id = :aggregateId");
            values.put("aggregateType", filter.aggregate().type());
            values.put("aggregateId", filter.aggregate().id());
        }
        if (filter.since() != null) {
            conditions.add("received_at >= :since");
            values.put("since", filter.since());
        }
        if (filter.until() != null) {
            conditions.add("received_at < :until");
            values.put("until", filter.until());
        }
        if (after != null) {
            conditions.add("(received_at, id) < (:afterAt, :afterId)");
            values.put("afterAt", after.at());
            values.put("afterId", after.id());
        }
        Query query = getHandle()
                .createQuery("""
                SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, status, outcome,
                       attempts, defer_reason, last_error, received_at, processed_at, workflow_id
                  FROM webhook_inbox
                """ + (conditions.isEmpty() ? "" : " WHERE " + String.join("\n   AND ", conditions) + "\n")
                        + " ORDER BY received_at DESC, id DESC LIMIT :limit");
        values.forEach(query::bind);
        return Page.of(
                query.bind("limit", limit + 1).map(InboxStore::inboxEvent).list(), limit, InboxEvent::position);
    }

    /** One row as operators see it, with its payload exactly as stored. */
    record InboxEventDetail(InboxEvent event, String payloadJson) {}

    default Optional<InboxEventDetail> detail(UUID inboxId) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, status,
                               outcome, attempts, defer_reason, last_error, received_at, processed_at, workflow_id,
                               payload::text AS payload
                          FROM webhook_inbox WHERE id = :id""")
                .bind("id", inboxId)
                .map((rs, ctx) -> new InboxEventDetail(inboxEvent(rs, ctx), rs.getString("payload")))
                .findOne();
    }

    /** An event that finished on an entity: applied, or ignored as stale. */
    record ProcessedEvent(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            Outcome outcome,
            Instant receivedAt,
            Instant processedAt) {
        Cursor position() {
            return new Cursor(processedAt, id);
        }
    }

    /**
     * An entity's state and one page of the events processed on it, in the order they finished; {@code nextCursor}
     * continues after the last one, null on the last page.
     */
    record EntityHistory(
            AggregateKey aggregate,
            String state,
            int version,
            Instant updatedAt,
            List<ProcessedEvent> events,
            String nextCursor) {}

    /** Empty when no inbound event has created the entity; {@code limit} events after {@code after} (null: first). */
    default Optional<EntityHistory> entityHistory(AggregateKey aggregate, Cursor after, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT state, version, updated_at FROM entities
                         WHERE aggregate_type = :type AND aggregate_id = :id""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .map((rs, ctx) -> new EntityHistory(
                        aggregate,
                        rs.getString("state"),
                        rs.getInt("version"),
                        instant(rs, "updated_at"),
                        List.of(),
                        null))
                .findOne()
                .map(entity -> {
                    Page<ProcessedEvent> page =
                            Page.of(processedEvents(aggregate, after, limit + 1), limit, ProcessedEvent::position);
                    return new EntityHistory(
                            aggregate,
                            entity.state(),
                            entity.version(),
                            entity.updatedAt(),
                            page.items(),
                            page.nextCursor());
                });
    }

    private List<ProcessedEvent> processedEvents(AggregateKey aggregate, Cursor after, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT id, partner_name, partner_event_id, event_type, outcome, received_at, processed_at
                          FROM webhook_inbox
                         WHERE aggregate_type = :type AND aggregate_id = :id AND status = :processed
                           AND (CAST(:afterAt AS timestamptz) IS NULL OR (processed_at, id) > (:afterAt, :afterId))
                         ORDER BY processed_at, id
                         LIMIT :limit""")
                .bind("type", aggregate.type())
                .bind("id", aggregate.id())
                .bind("processed", InboxState.PROCESSED.name())
                .bind("afterAt", after == null ? null : after.at())
                .bind("afterId", after == null ? null : after.id())
                .bind("limit", limit)
                .map((rs, ctx) -> new ProcessedEvent(
                        rs.getObject("id", UUID.class),
                        rs.getString("partner_name"),
                        rs.getString("partner_event_id"),
                        rs.getString("event_type"),
                        Outcome.valueOf(rs.getString("outcome")),
                        instant(rs, "received_at"),
                        instant(rs, "processed_at")))
                .list();
    }

    private static InboxEvent inboxEvent(ResultSet rs, StatementContext ctx) throws SQLException {
        String partner = rs.getString("partner_name");
        String outcome = rs.getString("outcome");
        return new InboxEvent(
                rs.getObject("id", UUID.class),
                partner,
                rs.getString("partner_event_id"),
                rs.getString("event_type"),
                AggregateKey.ofNullable(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                InboxState.valueOf(rs.getString("status")),
                outcome == null ? null : Outcome.valueOf(outcome),
                rs.getInt("attempts"),
                rs.getString("defer_reason"),
                rs.getString("last_error"),
                instant(rs, "received_at"),
                instant(rs, "processed_at"),
                InboxEventWorkflow.workflowIdOf(
                        rs.getString("workflow_id"), partner, rs.getString("partner_event_id")));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
