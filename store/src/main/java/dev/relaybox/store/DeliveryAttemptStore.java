package dev.relaybox.store;

import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements every delivery runs (planning its targets, reading what an attempt needs, recording the attempt):
 * part of {@link DeliveryStore}, declared apart so that the per-delivery calls attach only these (JDBI builds a
 * handler for every method of the interface on each attach, and {@link DeliveryStore} has dozens).
 */
public interface DeliveryAttemptStore {
    /** {@code nextAttemptAt}: when a retrying delivery's next attempt is due, as its workflow recorded it. */
    /** {@code goesAtOnce}: as {@code EndpointAttemptStore.GateSnapshot#goesAtOnce} reads it for an attemptable one. */
    record Target(
            UUID deliveryId,
            String endpointName,
            String url,
            int attempts,
            Instant nextAttemptAt,
            boolean goesAtOnce) {}

    /** Everything one attempt needs, read in one query. */
    record AttemptContext(
            UUID deliveryId,
            UUID outboxId,
            DeliveryStatus status,
            Instant enqueuedAt,
            String payload,
            UUID endpointId,
            String endpointName,
            String url,
            String tenant,
            @Sealed String secret,
            @Sealed String previousSecret,
            Instant previousSecretExpiresAt,
            boolean enabled,
            String disabledReason,
            boolean rateLimited,
            String sourcePartner,
            String sourceEventId,
            @Sealed String headers,
            boolean edited,
            String traceparent,
            @Sealed String destination,
            String eventType,
            String aggregateId) {}

    /** An endpoint's payload filter as stored. */
    public record StoredFilter(UUID endpointId, String payloadFilter) {}

    /** The payload filters a first fan-out of the row would test; none for a row naming its targets. */
    @SqlQuery("""
            SELECT e.id AS endpoint_id, e.payload_filter::text AS payload_filter
              FROM outbox_events o CROSS JOIN endpoints e
             WHERE o.id = :outboxId AND o.target_endpoints IS NULL AND e.payload_filter IS NOT NULL
               AND e.tenant IS NOT DISTINCT FROM o.tenant
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.outbox_id = o.id)""")
    @RegisterConstructorMapper(StoredFilter.class)
    List<StoredFilter> payloadFilters(@Bind("outboxId") UUID outboxId);

    @SqlQuery("SELECT payload::text FROM outbox_events WHERE id = :outboxId")
    String payloadText(@Bind("outboxId") UUID outboxId);

    /**
     * Subscribes the row to the endpoints enabled now, once: a row re-run later (replay, reconciler) keeps
     * the deliveries it had rather than fanning out to endpoints created since. A disabled endpoint gets its
     * delivery too, PAUSED until it is enabled again (the endpoint row is share-locked, so an enabling that
     * commits meanwhile either sees the paused row or is seen as enabled). Relaybox's own
     * {@code relaybox.*} events (alerts naming other endpoints' URLs and errors) go only to the alert
     * endpoint, whatever other filters say. A row naming its target endpoints (a partner event an inbound route
     * forwards) goes to those alone, whatever their filters say. The endpoints in {@code unmatched} (their payload filter does not match the row's payload) get no delivery;
     * call it in the transaction that plans the row, so it and {@link #payloadFilters} see one set of endpoints.
     */
    @SqlUpdate("""
            INSERT INTO deliveries (outbox_id, endpoint_id, status)
            SELECT o.id, e.id, CASE WHEN e.enabled THEN :pending ELSE :paused END
              FROM outbox_events o
             CROSS JOIN endpoints e
             WHERE o.id = :outboxId
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.outbox_id = o.id)
               -- A tenant's event reaches that tenant's endpoints only; one without a tenant, the operator's.
               AND e.tenant IS NOT DISTINCT FROM o.tenant
               AND CASE WHEN o.target_endpoints IS NOT NULL THEN e.name = ANY(o.target_endpoints)
                        ELSE (lower(o.event_type) NOT LIKE 'relaybox.%' OR e.name = 'relaybox-alerts')
                             AND EXISTS (SELECT 1 FROM unnest(e.event_types) f
                                          WHERE f = '*' OR f = o.event_type
                                             OR (f LIKE '%.*' AND starts_with(o.event_type, left(f, -1))))
                   END
               AND NOT (e.id = ANY(:unmatched))
               FOR SHARE OF e
            ON CONFLICT (outbox_id, endpoint_id) DO NOTHING""")
    int createDeliveries(
            @Bind("outboxId") UUID outboxId,
            @Bind("pending") DeliveryStatus pending,
            @Bind("paused") DeliveryStatus paused,
            @Bind("unmatched") UUID[] unmatched);

    /** PROCESSED once none of the row's deliveries is left to attempt; false while some are, or when done before. */
    default boolean markProcessed(UUID outboxId) {
        return markProcessed(outboxId, OutboxStatus.PROCESSED, DeliveryStatus.attemptableNames());
    }

    @SqlUpdate("""
            UPDATE outbox_events SET status = :to, processed_at = now()
             WHERE id = :outboxId AND processed_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM deliveries
                                WHERE outbox_id = :outboxId AND status = ANY(:attemptable))""")
    boolean markProcessed(
            @Bind("outboxId") UUID outboxId, @Bind("to") OutboxStatus to, @Bind("attemptable") String[] attemptable);

    default List<Target> unfinished(UUID outboxId) {
        return unfinished(outboxId, DeliveryStatus.attemptableNames(), Circuit.CLOSED);
    }

    @SqlQuery("""
            SELECT d.id AS delivery_id, e.name AS endpoint_name, e.url, d.attempts, d.next_attempt_at,
                   NOT e.enabled OR (""" + EndpointAttemptStore.UNLIMITED + " AND " + EndpointAttemptStore.CIRCUIT_CLOSED + """
                    AND d.waiting_for IS NULL) AS goes_at_once
              FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
              LEFT JOIN endpoint_state s ON s.endpoint_id = d.endpoint_id
             WHERE d.outbox_id = :outboxId AND d.status = ANY(:attemptable)
             ORDER BY e.name""")
    @RegisterConstructorMapper(Target.class)
    List<Target> unfinished(
            @Bind("outboxId") UUID outboxId, @Bind("attemptable") String[] attemptable, @Bind("closed") Circuit closed);

    /** What an attempt sends, and where, of the deliveries its query selects as {@code d}. */
    String ATTEMPT_CONTEXT = """
            SELECT d.id AS delivery_id, d.outbox_id, d.status, o.created_at AS enqueued_at,
                   -- The body sent: the Standard Webhooks envelope unless the endpoint asks for the raw payload.
                   -- A forwarded partner event also says whose event it is.
                   CASE WHEN e.payload_format = 'raw' THEN coalesce(d.edited_payload, o.payload)::text
                        WHEN o.source_partner IS NOT NULL THEN json_build_object('type', o.event_type,
                                 'timestamp', to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'data', coalesce(d.edited_payload, o.payload),
                                 'source', json_build_object('partner', o.source_partner,
                                     'eventId', o.source_event_id, 'aggregateType', o.aggregate_type,
                                     'aggregateId', o.aggregate_id))::text
                        ELSE json_build_object('type', o.event_type,
                                 'timestamp', to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'data', coalesce(d.edited_payload, o.payload))::text
                   END AS payload, e.id AS endpoint_id,
                   e.name AS endpoint_name, e.url, e.tenant, e.secret, e.previous_secret, e.previous_secret_expires_at,
                   e.enabled, e.disabled_reason, e.rate_limit IS NOT NULL AS rate_limited,
                   o.source_partner, o.source_event_id, e.headers,
                   -- Corrected by an operator: this delivery's own payload, or the event's before any delivery had it.
                   d.edited_payload IS NOT NULL
                       OR EXISTS (SELECT 1 FROM payload_edits pe WHERE pe.row_id = o.id AND pe.delivery_id IS NULL)
                       AS edited,
                   o.traceparent, e.destination, o.event_type, o.aggregate_id
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
            """;

    @SqlQuery(ATTEMPT_CONTEXT + " WHERE d.id = :deliveryId")
    @RegisterConstructorMapper(AttemptContext.class)
    Optional<AttemptContext> attemptContext(@Bind("deliveryId") UUID deliveryId);

    @SqlQuery(ATTEMPT_CONTEXT + " WHERE d.id = ANY(:deliveryIds)")
    @RegisterConstructorMapper(AttemptContext.class)
    List<AttemptContext> attemptContexts(@Bind("deliveryIds") List<UUID> deliveryIds);

    /**
     * Records one request of the delivery: numbered after every earlier one (and never below {@code scheduledAttempt},
     * its number in the delivery's current schedule, which is kept beside it: a run that took over mid-schedule from
     * rows without their log continues the count), and why it was made again when that number was recorded before
     * (the try that recorded it lost its outcome on the way back: its worker stopped, or the database did not answer
     * in time) or when it opens a new schedule (a replay or a resend). Call it after the delivery's row is locked.
     */
    @SqlUpdate("""
            INSERT INTO delivery_attempts (delivery_id, attempt, schedule, scheduled_attempt, again, started_at,
                                           status_code, latency_ms, response_excerpt, error, broker_confirmed)
            SELECT d.id,
                   GREATEST(coalesce((SELECT max(a.attempt) FROM delivery_attempts a WHERE a.delivery_id = d.id), 0) + 1,
                            :scheduledAttempt),
                   d.schedule, :scheduledAttempt,
                   CASE WHEN EXISTS (SELECT 1 FROM delivery_attempts a
                                      WHERE a.delivery_id = d.id AND coalesce(a.schedule, 1) = d.schedule
                                        AND coalesce(a.scheduled_attempt, a.attempt) >= :scheduledAttempt)
                        THEN 'attempt ' || :scheduledAttempt || ' of its schedule made again: the outcome of an '
                             || 'earlier try did not come back (its worker stopped, or the database did not answer)'
                        WHEN :scheduledAttempt = 1 AND d.schedule > 1
                        THEN 'a new schedule: the delivery was replayed or resent'
                   END,
                   :startedAt, :statusCode, :latencyMs, :responseExcerpt, :error, :brokerConfirmed
              FROM deliveries d WHERE d.id = :deliveryId""")
    void recordAttempt(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("scheduledAttempt") int scheduledAttempt,
            @Bind("startedAt") Instant startedAt,
            @Bind("statusCode") Integer statusCode,
            @Bind("latencyMs") int latencyMs,
            @Bind("responseExcerpt") String responseExcerpt,
            @Bind("error") String error,
            @Bind("brokerConfirmed") boolean brokerConfirmed);

    default boolean noteAttempt(UUID deliveryId, int attempt, Integer statusCode, String error) {
        return noteAttempt(deliveryId, attempt, statusCode, error, DeliveryStatus.attemptableNames());
    }

    @SqlUpdate("""
            UPDATE deliveries SET attempts = GREATEST(attempts, :attempt), last_status = :statusCode,
                   last_error = :error, updated_at = now()
             WHERE id = :deliveryId AND status = ANY(:attemptable)""")
    boolean noteAttempt(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("attempt") int attempt,
            @Bind("statusCode") Integer statusCode,
            @Bind("error") String error,
            @Bind("attemptable") String[] attemptable);

    default boolean markDelivered(UUID deliveryId) {
        return markDelivered(deliveryId, DeliveryStatus.DELIVERED, DeliveryStatus.before(DeliveryStatus.DELIVERED));
    }

    @SqlUpdate("""
            UPDATE deliveries SET status = :to, next_attempt_at = NULL, last_error = NULL,
                   completed_at = now(), updated_at = now()
             WHERE id = :deliveryId AND status = ANY(:from)""")
    boolean markDelivered(
            @Bind("deliveryId") UUID deliveryId, @Bind("to") DeliveryStatus to, @Bind("from") String[] from);
}
