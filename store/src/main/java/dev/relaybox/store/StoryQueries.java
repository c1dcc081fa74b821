package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The reads behind an event's story: finding its aggregate from any id an operator may hold, then that aggregate's
 * inbound events, outbound events, deliveries, attempts, dead letters, payload edits and entity. It reads every row family
 * because a story is all of them side by side; it only reads, so each family's store still owns every write.
 */
public interface StoryQueries {

    /** A row that names an aggregate (or, for an inbound event without one, only itself). */
    record Found(UUID id, String aggregateType, String aggregateId) {
        public AggregateKey aggregate() {
            return AggregateKey.ofNullable(aggregateType, aggregateId);
        }
    }

    record InboxRow(
            UUID id,
            String partnerName,
            String partnerEventId,
            String eventType,
            String status,
            String outcome,
            String deferReason,
            String lastError,
            int attempts,
            Instant receivedAt,
            Instant processedAt,
            String traceId) {}

    record OutboxRow(
            UUID id,
            String eventType,
            String status,
            Instant createdAt,
            Instant dispatchedAt,
            Instant processedAt,
            String traceId) {}

    record DeliveryRow(
            UUID id,
            UUID outboxId,
            String endpoint,
            String url,
            String status,
            int attempts,
            Integer lastStatus,
            String lastError,
            Instant nextAttemptAt,
            Instant completedAt,
            String waitingFor) {}

    record AttemptRow(
            UUID deliveryId,
            int attempt,
            Instant startedAt,
            Integer statusCode,
            int latencyMs,
            String error,
            String again,
            boolean brokerConfirmed) {}

    record DeadLetterRow(
            UUID id,
            String source,
            UUID reference,
            String reason,
            int attempts,
            Instant createdAt,
            Instant resolvedAt,
            String resolution) {}

    record EntityRow(String state, int version, Instant updatedAt) {}

    /** An audit entry of {@code payload_edits}; payloads and changes as JSON text. */
    record PayloadEditRow(
            UUID id,
            UUID deadLetterId,
            String source,
            UUID rowId,
            String previousPayload,
            String payload,
            String changes,
            String reason,
            String actor,
            String declaredBy,
            String signatureNote,
            Instant editedAt) {}

    /** The outbox row with this id, or the one of the delivery with this id. */
    @SqlQuery("""
            SELECT o.id, o.aggregate_type, o.aggregate_id FROM outbox_events o
             WHERE o.id = :id
                OR o.id = (SELECT outbox_id FROM deliveries WHERE id = :id)
             LIMIT 1""")
    @RegisterConstructorMapper(Found.class)
    Optional<Found> outboxOrDelivery(@Bind("id") UUID id);

    @SqlQuery("SELECT id, aggregate_type, aggregate_id FROM webhook_inbox WHERE id = :id")
    @RegisterConstructorMapper(Found.class)
    Optional<Found> inbox(@Bind("id") UUID id);

    /** The latest inbound event a partner sent with this event id. */
    @SqlQuery("""
            SELECT id, aggregate_type, aggregate_id FROM webhook_inbox
             WHERE partner_event_id = :partnerEventId ORDER BY received_at DESC LIMIT 1""")
    @RegisterConstructorMapper(Found.class)
    Optional<Found> inboxByPartnerEventId(@Bind("partnerEventId") String partnerEventId);

    @SqlQuery("SELECT reference FROM dead_letters WHERE id = :id")
    Optional<UUID> deadLetterReference(@Bind("id") UUID id);

    /** Does any outbound event, inbound event or entity name this aggregate? */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM outbox_events WHERE aggregate_type = :type AND aggregate_id = :id)
                OR EXISTS (SELECT 1 FROM webhook_inbox WHERE aggregate_type = :type AND aggregate_id = :id)
                OR EXISTS (SELECT 1 FROM entities WHERE aggregate_type = :type AND aggregate_id = :id)""")
    boolean known(@Bind("type") String type, @Bind("id") String id);

    default boolean known(AggregateKey aggregate) {
        return known(aggregate.type(), aggregate.id());
    }

    /** The aggregate's latest {@code limit} inbound events, oldest first. */
    @SqlQuery("""
            SELECT * FROM (
                SELECT id, partner_name, partner_event_id, event_type, status, outcome, defer_reason,
                       last_error, attempts, received_at, processed_at, """ + Columns.TRACE_ID + """
                  FROM webhook_inbox
                 WHERE aggregate_type = :type AND aggregate_id = :id
                 ORDER BY received_at DESC LIMIT :limit) latest
             ORDER BY received_at, id""")
    @RegisterConstructorMapper(InboxRow.class)
    List<InboxRow> inboxOf(@Bind("type") String type, @Bind("id") String id, @Bind("limit") int limit);

    @SqlQuery("""
            SELECT id, partner_name, partner_event_id, event_type, status, outcome, defer_reason,
                   last_error, attempts, received_at, processed_at, """ + Columns.TRACE_ID + """
              FROM webhook_inbox WHERE id = :id""")
    @RegisterConstructorMapper(InboxRow.class)
    List<InboxRow> inboxAlone(@Bind("id") UUID id);

    /** The aggregate's latest {@code limit} outbound events, oldest first. */
    @SqlQuery("""
            SELECT * FROM (
                SELECT id, event_type, status, created_at, dispatched_at, processed_at, """ + Columns.TRACE_ID + """
                  FROM outbox_events
                 WHERE aggregate_type = :type AND aggregate_id = :id
                 ORDER BY created_at DESC LIMIT :limit) latest
             ORDER BY created_at, id""")
    @RegisterConstructorMapper(OutboxRow.class)
    List<OutboxRow> outboxOf(@Bind("type") String type, @Bind("id") String id, @Bind("limit") int limit);

    @SqlQuery("""
            SELECT d.id, d.outbox_id, e.name AS endpoint, e.url, d.status, d.attempts, d.last_status, d.last_error,
                   d.next_attempt_at, d.completed_at, d.waiting_for
              FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.outbox_id = ANY(:ids) ORDER BY d.created_at, d.id""")
    @RegisterConstructorMapper(DeliveryRow.class)
    List<DeliveryRow> deliveries(@Bind("ids") Collection<UUID> outboxIds);

    @SqlQuery("""
            SELECT delivery_id, attempt, started_at, status_code, latency_ms, error, again, broker_confirmed
              FROM delivery_attempts WHERE delivery_id = ANY(:ids) ORDER BY id""")
    @RegisterConstructorMapper(AttemptRow.class)
    List<AttemptRow> attempts(@Bind("ids") Collection<UUID> deliveryIds);

    @SqlQuery("""
            SELECT id, source, reference, reason, attempts, created_at, resolved_at, resolution
              FROM dead_letters WHERE reference = ANY(:refs) ORDER BY created_at, id""")
    @RegisterConstructorMapper(DeadLetterRow.class)
    List<DeadLetterRow> deadLetters(@Bind("refs") Collection<UUID> references);

    /** The payload edits of these inbox and outbox rows, oldest first. */
    @SqlQuery("""
            SELECT id, dead_letter_id, source, row_id, previous_payload::text AS previous_payload,
                   payload::text AS payload, changes::text AS changes, reason, actor, declared_by, signature_note,
                   edited_at
              FROM payload_edits WHERE row_id = ANY(:rows) ORDER BY edited_at, id""")
    @RegisterConstructorMapper(PayloadEditRow.class)
    List<PayloadEditRow> payloadEdits(@Bind("rows") Collection<UUID> rowIds);

    @SqlQuery("SELECT state, version, updated_at FROM entities WHERE aggregate_type = :type AND aggregate_id = :id")
    @RegisterConstructorMapper(EntityRow.class)
    Optional<EntityRow> entity(@Bind("type") String type, @Bind("id") String id);
}
