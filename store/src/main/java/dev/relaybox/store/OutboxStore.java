package dev.relaybox.store;

import dev.relaybox.producer.IdempotentEnqueue;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.transaction.Transaction;

/**
 * Every statement Relaybox itself runs on {@code outbox_events}, from the {@code POST /outbox} insert to retention,
 * but the operators' list ({@link OutboxQueries}).
 * Producers write through the producer library ({@link Outbox}); this store calls it for the API. Status changes
 * are guarded by the statuses {@link OutboxStatus} allows to make them.
 */
public interface OutboxStore extends OutboxReplays {

    /** {@code tenant}: whose event it is, empty for the operator's own. */
    record Event(UUID id, String eventType, AggregateKey aggregate, String tenant, String traceId) {}

    /**
     * A row the dispatcher or reconciler claimed; {@code payloadBytes} is 0 when it was not measured. {@code forwarded}:
     * a partner event an inbound route forwards, not one Relaybox publishes. {@code planned}: it has deliveries, so a
     * workflow planned it before (a replay put it back, or its workflow is running): one may still be running.
     * {@code tenant}: whose event it is, empty for the operator's own.
     */
    record Claimed(
            UUID id,
            String eventType,
            AggregateKey aggregate,
            long payloadBytes,
            boolean forwarded,
            boolean planned,
            String tenant,
            String traceId) {}

    /** Rows deleted by one retention batch, per table. */
    record Purged(int outboxEvents, int deliveries, int deliveryAttempts) {
        public static final Purged NONE = new Purged(0, 0, 0);
    }

    /** {@code POST /outbox} without an idempotency key: the row, committed. */
    @Transaction
    default UUID enqueue(OutboxEvent event) {
        return Outbox.enqueue(getHandle(), event);
    }

    /** {@code POST /outbox} with an idempotency key: the row it created the first time, or a conflict. */
    @Transaction
    default IdempotentEnqueue enqueueIdempotent(OutboxEvent event, String key, String requestHash) {
        return Outbox.enqueueIdempotent(getHandle(), event, key, requestHash);
    }

    default Optional<Event> event(UUID outboxId) {
        return getHandle()
                .createQuery("""
                        SELECT id, event_type, aggregate_type, aggregate_id, coalesce(tenant, '') AS tenant,
                               """ + Columns.TRACE_ID + """
                          FROM outbox_events WHERE id = :id""")
                .bind("id", outboxId)
                .map((rs, ctx) -> new Event(
                        rs.getObject("id", UUID.class),
                        rs.getString("event_type"),
                        aggregate(rs),
                        rs.getString("tenant"),
                        rs.getString("trace_id")))
                .findOne();
    }

    /** The payload as stored, as JSON text. */
    @SqlQuery("SELECT payload::text FROM outbox_events WHERE id = :id")
    Optional<String> payload(@Bind("id") UUID outboxId);

    /**
     * Locks up to {@code limit} undispatched rows, skipping rows another instance holds, fairly across tenants: each
     * tenant's oldest row first (the operator's rows count as one tenant), then each one's second, and so on, so one
     * tenant's backlog never queues another's event behind it. The tenants with a backlog are found one index probe
     * each (a skip scan), not by reading the backlog.
     */
    default List<Claimed> claimUndispatched(int limit) {
        return getHandle()
                .createQuery("""
                        WITH RECURSIVE waiting(tenant) AS (
                            (SELECT coalesce(tenant, '') FROM outbox_events
                              WHERE dispatched_at IS NULL ORDER BY 1 LIMIT 1)
                            UNION ALL
                            SELECT (SELECT coalesce(o.tenant, '') FROM outbox_events o
                                     WHERE o.dispatched_at IS NULL AND coalesce(o.tenant, '') > w.tenant
                                     ORDER BY 1 LIMIT 1)
                              FROM waiting w WHERE w.tenant IS NOT NULL),
                        fair AS (
                            SELECT head.id, head.turn, head.created_at
                              FROM waiting w CROSS JOIN LATERAL (
                                   SELECT o.id, o.created_at, row_number() OVER (ORDER BY o.created_at) AS turn
                                     FROM outbox_events o
                                    WHERE o.dispatched_at IS NULL AND coalesce(o.tenant, '') = w.tenant
                                    ORDER BY o.created_at LIMIT :limit) head
                             WHERE w.tenant IS NOT NULL
                             ORDER BY head.turn, head.created_at LIMIT :limit)
                        SELECT o.id, o.event_type, o.aggregate_type, o.aggregate_id,
                               octet_length(o.payload::text) AS payload_bytes, o.source_partner IS NOT NULL AS forwarded,
                               EXISTS (SELECT 1 FROM deliveries d WHERE d.outbox_id = o.id) AS planned,
                               coalesce(o.tenant, '') AS tenant, """ + Columns.TRACE_ID + """
                          FROM outbox_events o JOIN fair f ON f.id = o.id
                         WHERE o.dispatched_at IS NULL
                         ORDER BY f.turn, f.created_at
                           FOR UPDATE OF o SKIP LOCKED""")
                .bind("limit", limit)
                .map(OutboxStore::claimed)
                .list();
    }

    default void markDispatched(List<UUID> ids) {
        markDispatched(ids.toArray(UUID[]::new), OutboxStatus.DISPATCHED, OutboxStatus.before(OutboxStatus.DISPATCHED));
    }

    @SqlUpdate("""
            UPDATE outbox_events SET dispatched_at = now(),
                   status = CASE WHEN status = ANY(:from) THEN :to ELSE status END
             WHERE id = ANY(:ids)""")
    void markDispatched(@Bind("ids") UUID[] ids, @Bind("to") OutboxStatus to, @Bind("from") String[] from);

    /** Undoes {@link #markDispatched(List)} for rows whose start failed for a passing reason. */
    default void markUndispatched(List<UUID> ids) {
        markUndispatched(ids.toArray(UUID[]::new), OutboxStatus.DISPATCHED, OutboxStatus.PENDING);
    }

    @SqlUpdate("""
            UPDATE outbox_events SET dispatched_at = NULL,
                   status = CASE WHEN status = :dispatched THEN :to ELSE status END
             WHERE id = ANY(:ids)""")
    void markUndispatched(
            @Bind("ids") UUID[] ids, @Bind("dispatched") OutboxStatus dispatched, @Bind("to") OutboxStatus to);

    /**
     * Takes a row that can never start out of the flow. The reason lives in the dead letter: the documented table
     * keeps its contract columns only. False when the row is already finished.
     */
    default boolean quarantine(UUID id) {
        return quarantine(id, OutboxStatus.QUARANTINED, OutboxStatus.before(OutboxStatus.QUARANTINED));
    }

    @SqlUpdate("""
            UPDATE outbox_events SET status = :to, dispatched_at = now()
             WHERE id = :id AND status = ANY(:from)""")
    boolean quarantine(@Bind("id") UUID id, @Bind("to") OutboxStatus to, @Bind("from") String[] from);

    /** Locks up to {@code limit} dispatched, unfinished rows last dispatched before {@code before}, oldest first. */
    default List<Claimed> claimStranded(Instant before, int limit) {
        return claimStranded(before, before, limit);
    }

    /**
     * As {@link #claimStranded(Instant, int)}, with the work due before {@code dueBefore}: a time later than any the
     * rows record takes every unfinished row dispatched before {@code before}.
     */
    default List<Claimed> claimStranded(Instant before, Instant dueBefore, int limit) {
        return getHandle()
                .createQuery("""
                        SELECT id, event_type, aggregate_type, aggregate_id, 0 AS payload_bytes,
                               source_partner IS NOT NULL AS forwarded, true AS planned, coalesce(tenant, '') AS tenant,
                               """ + Columns.TRACE_ID + """
                          FROM outbox_events o
                         WHERE status = :dispatched AND dispatched_at < :before
                           -- Every delivery finished but the row not (or none planned yet), or one whose next attempt
                           -- was due, or that has not moved, since before: its workflow should have acted by then.
                           AND (NOT EXISTS (SELECT 1 FROM deliveries d
                                             WHERE d.outbox_id = o.id AND d.status = ANY(:attemptable))
                                OR EXISTS (SELECT 1 FROM deliveries d
                                            WHERE d.outbox_id = o.id AND d.status = ANY(:attemptable)
                                              AND COALESCE(d.next_attempt_at, d.updated_at) < :dueBefore))
                         ORDER BY dispatched_at
                         LIMIT :limit
                           FOR UPDATE SKIP LOCKED""")
                .bind("dispatched", OutboxStatus.DISPATCHED)
                .bindArray("attemptable", String.class, (Object[]) DeliveryStatus.attemptableNames())
                .bind("before", before)
                .bind("dueBefore", dueBefore)
                .bind("limit", limit)
                .map(OutboxStore::claimed)
                .list();
    }

    /** A {@code relaybox.test} event for one endpoint only: the portal's "send a test event". */
    @SqlQuery("""
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, tenant, target_endpoints)
            VALUES ('endpoint', CAST(:endpointId AS text), 'relaybox.test',
                    jsonb_build_object('message', 'a test event from Relaybox', 'endpointId', CAST(:endpointId AS text)),
                    :tenant, ARRAY[:endpointName])
            RETURNING id""")
    UUID enqueueTest(
            @Bind("endpointId") UUID endpointId,
            @Bind("endpointName") String endpointName,
            @Bind("tenant") String tenant);

    @SqlQuery("SELECT pg_notify('relaybox_dispatch', 'outbox_events')")
    String wakeDispatcher();

    /**
     * Deletes up to {@code limit} PROCESSED rows processed before {@code processedBefore}, oldest first, with their
     * deliveries and attempts, skipping rows another transaction holds. A row is kept while any of its deliveries is
     * unfinished or referred to by a dead letter. Call in a transaction; returns the rows picked and deleted.
     */
    default Purged purgeFinished(Instant processedBefore, int limit) {
        List<UUID> ids = getHandle()
                .createQuery("""
                        SELECT o.id FROM outbox_events o
                         WHERE o.status = :processed AND o.processed_at < :before
                           AND NOT EXISTS (
                               SELECT 1 FROM deliveries d
                                WHERE d.outbox_id = o.id
                                  AND (d.status <> ALL(:finished)
                                       OR EXISTS (SELECT 1 FROM dead_letters dl
                                                   WHERE dl.source = :outbox AND dl.reference = d.id)))
                         ORDER BY o.processed_at
                         LIMIT :limit
                         FOR UPDATE OF o SKIP LOCKED""")
                .bind("processed", OutboxStatus.PROCESSED)
                .bind("finished", DeliveryStatus.finishedNames())
                .bind("outbox", DeadLetterSource.OUTBOX)
                .bind("before", processedBefore)
                .bind("limit", limit)
                .mapTo(UUID.class)
                .list();
        if (ids.isEmpty()) {
            return Purged.NONE;
        }
        UUID[] picked = ids.toArray(UUID[]::new);
        int attempts = getHandle().createUpdate("""
                        DELETE FROM delivery_attempts
                         WHERE delivery_id IN (SELECT id FROM deliveries WHERE outbox_id = ANY(:ids))""").bind("ids", picked).execute();
        int deliveries = getHandle()
                .createUpdate("DELETE FROM deliveries WHERE outbox_id = ANY(:ids)")
                .bind("ids", picked)
                .execute();
        int outbox = getHandle()
                .createUpdate("DELETE FROM outbox_events WHERE id = ANY(:ids)")
                .bind("ids", picked)
                .execute();
        return new Purged(outbox, deliveries, attempts);
    }

    private static Claimed claimed(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Claimed(
                rs.getObject("id", UUID.class),
                rs.getString("event_type"),
                aggregate(rs),
                rs.getLong("payload_bytes"),
                rs.getBoolean("forwarded"),
                rs.getBoolean("planned"),
                rs.getString("tenant"),
                rs.getString("trace_id"));
    }

    static AggregateKey aggregate(ResultSet rs) throws SQLException {
        return new AggregateKey(rs.getString("aggregate_type"), rs.getString("aggregate_id"));
    }

    /**
     * A partner event an inbound route forwards, as received, to {@code endpoints} only; {@code id} is derived from
     * the inbox row so that it names this forwarding wherever it is computed.
     */
    record Forwarded(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            AggregateKey aggregate,
            String payloadJson,
            List<String> endpoints,
            String traceparent) {}

    /**
     * Enqueues the forwarded event on the caller's transaction, once per id: a decision run again finds the row and
     * adds nothing. Answers whether the row is new.
     */
    default boolean enqueueForwarded(Forwarded event) {
        return getHandle()
                        .createUpdate("""
                        INSERT INTO outbox_events (id, aggregate_type, aggregate_id, event_type, payload, source_partner,
                                                   source_event_id, target_endpoints, traceparent)
                        VALUES (:id, :aggregateType, :aggregateId, :eventType, CAST(:payload AS jsonb), :partner,
                                :partnerEventId, :endpoints, :traceparent)
                        ON CONFLICT (id) DO NOTHING""")
                        .bind("id", event.id())
                        .bind("aggregateType", event.aggregate().type())
                        .bind("aggregateId", event.aggregate().id())
                        .bind("eventType", event.eventType())
                        .bind("payload", event.payloadJson())
                        .bind("partner", event.partner())
                        .bind("partnerEventId", event.partnerEventId())
                        .bindArray("endpoints", String.class, event.endpoints())
                        .bind("traceparent", event.traceparent())
                        .execute()
                == 1;
    }
}
