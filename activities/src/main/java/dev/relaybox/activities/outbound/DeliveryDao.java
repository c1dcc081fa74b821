package dev.relaybox.activities.outbound;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Deliveries and their attempts. Updates are guarded by status: {@code false} means someone else finished it. */
public interface DeliveryDao {

    record OutboxRow(UUID id, String eventType, String aggregateType, String aggregateId) {}

    /** {@code nextAttemptAt}: when a retrying delivery's next attempt is due, as its workflow recorded it. */
    record Target(UUID deliveryId, String endpointName, String url, int attempts, Instant nextAttemptAt) {}

    /** Everything one attempt needs, read in one query. */
    record AttemptContext(UUID deliveryId, UUID outboxId, String status, String payload, UUID endpointId,
            String endpointName, String url, String secret, String previousSecret, Instant previousSecretExpiresAt,
            boolean enabled, String disabledReason) {}

    record DeadLetterContext(String endpointName, String url, String eventType, int attempts) {}

    @SqlQuery("""
            SELECT e.name AS endpoint_name, e.url, o.event_type, d.attempts
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(DeadLetterContext.class)
    DeadLetterContext deadLetterContext(@Bind("deliveryId") UUID deliveryId);

    @SqlQuery("SELECT id, event_type, aggregate_type, aggregate_id FROM outbox_events WHERE id = :id")
    @RegisterConstructorMapper(OutboxRow.class)
    Optional<OutboxRow> outboxRow(@Bind("id") UUID outboxId);

    /**
     * Subscribes the row to the endpoints enabled now, once: a row re-run later (replay, reconciler) keeps
     * the deliveries it had rather than fanning out to endpoints created since. A disabled endpoint gets its
     * delivery too, PAUSED until it is enabled again (the endpoint row is share-locked, so an enabling that
     * commits meanwhile either sees the paused row or is seen as enabled). Relaybox's own
     * {@code relaybox.*} events (alerts naming other endpoints' URLs and errors) go only to the alert
     * endpoint, whatever other filters say.
     */
    @SqlUpdate("""
            INSERT INTO deliveries (outbox_id, endpoint_id, status)
            SELECT o.id, e.id, CASE WHEN e.enabled THEN 'PENDING' ELSE 'PAUSED' END
              FROM outbox_events o
             CROSS JOIN endpoints e
             WHERE o.id = :outboxId
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.outbox_id = o.id)
               AND (lower(o.event_type) NOT LIKE 'relaybox.%' OR e.name = 'relaybox-alerts')
               AND EXISTS (SELECT 1 FROM unnest(e.event_types) f
                            WHERE f = '*' OR f = o.event_type
                               OR (f LIKE '%.*' AND starts_with(o.event_type, left(f, -1))))
               FOR SHARE OF e
            ON CONFLICT (outbox_id, endpoint_id) DO NOTHING""")
    int createDeliveries(@Bind("outboxId") UUID outboxId);

    /**
     * Pauses an unfinished delivery whose endpoint is disabled. The endpoint row is share-locked and read
     * again, so an endpoint enabled meanwhile is never left with a paused delivery: {@code false} then.
     */
    @SqlUpdate("""
            WITH disabled AS (SELECT id FROM endpoints WHERE id = :endpointId AND NOT enabled FOR SHARE)
            UPDATE deliveries SET status = 'PAUSED', next_attempt_at = NULL, updated_at = now()
             WHERE id = :deliveryId AND status IN ('PENDING', 'RETRYING') AND EXISTS (SELECT 1 FROM disabled)""")
    boolean pauseWhileDisabled(@Bind("deliveryId") UUID deliveryId, @Bind("endpointId") UUID endpointId);

    /**
     * Call in the transaction that enables the endpoint: its paused deliveries start a fresh schedule, and
     * their outbox rows become undispatched again, so the dispatcher (re)starts their workflows. Returns how
     * many outbox rows were resumed.
     */
    @SqlUpdate("""
            WITH resumed AS (
                UPDATE deliveries SET status = 'PENDING', attempts = 0, next_attempt_at = NULL, completed_at = NULL,
                       updated_at = now()
                 WHERE endpoint_id = :endpointId AND status = 'PAUSED'
                RETURNING outbox_id)
            UPDATE outbox_events SET status = 'PENDING', dispatched_at = NULL, processed_at = NULL
             WHERE id IN (SELECT outbox_id FROM resumed)""")
    int resumePaused(@Bind("endpointId") UUID endpointId);

    /** Wakes the dispatcher when this transaction commits, as inserting an outbox row does. */
    @SqlQuery("SELECT pg_notify('relaybox_dispatch', 'outbox_events')")
    String wakeDispatcher();

    @SqlQuery("""
            SELECT d.id AS delivery_id, e.name AS endpoint_name, e.url, d.attempts, d.next_attempt_at
              FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.outbox_id = :outboxId AND d.status IN ('PENDING', 'RETRYING')
             ORDER BY e.name""")
    @RegisterConstructorMapper(Target.class)
    List<Target> unfinished(@Bind("outboxId") UUID outboxId);

    @SqlQuery("""
            SELECT d.id AS delivery_id, d.outbox_id, d.status,
                   -- The body sent: the Standard Webhooks envelope unless the endpoint asks for the raw payload.
                   CASE WHEN e.payload_format = 'raw' THEN o.payload::text
                        ELSE json_build_object('type', o.event_type,
                                 'timestamp', to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'data', o.payload)::text
                   END AS payload, e.id AS endpoint_id,
                   e.name AS endpoint_name, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
                   e.enabled, e.disabled_reason
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(AttemptContext.class)
    Optional<AttemptContext> attemptContext(@Bind("deliveryId") UUID deliveryId);

    @SqlUpdate("""
            INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
            VALUES (:deliveryId, :attempt, :startedAt, :statusCode, :latencyMs, :responseExcerpt, :error)""")
    void recordAttempt(@Bind("deliveryId") UUID deliveryId, @Bind("attempt") int attempt,
            @Bind("startedAt") Instant startedAt, @Bind("statusCode") Integer statusCode,
            @Bind("latencyMs") int latencyMs, @Bind("responseExcerpt") String responseExcerpt,
            @Bind("error") String error);

    @SqlUpdate("""
            UPDATE deliveries SET attempts = GREATEST(attempts, :attempt), last_status = :statusCode,
                   last_error = :error, updated_at = now()
             WHERE id = :deliveryId AND status IN ('PENDING', 'RETRYING')""")
    boolean noteAttempt(@Bind("deliveryId") UUID deliveryId, @Bind("attempt") int attempt,
            @Bind("statusCode") Integer statusCode, @Bind("error") String error);

    @SqlUpdate("""
            UPDATE deliveries SET status = 'DELIVERED', next_attempt_at = NULL, last_error = NULL,
                   completed_at = now(), updated_at = now()
             WHERE id = :deliveryId AND status IN ('PENDING', 'RETRYING')""")
    boolean markDelivered(@Bind("deliveryId") UUID deliveryId);

    @SqlUpdate("""
            UPDATE deliveries SET status = 'RETRYING', next_attempt_at = :nextAttemptAt, last_error = :lastError,
                   updated_at = now()
             WHERE id = :deliveryId AND status IN ('PENDING', 'RETRYING')""")
    boolean markRetrying(@Bind("deliveryId") UUID deliveryId, @Bind("nextAttemptAt") Instant nextAttemptAt,
            @Bind("lastError") String lastError);

    @SqlUpdate("""
            UPDATE deliveries SET status = :status, next_attempt_at = NULL, completed_at = now(), updated_at = now(),
                   last_error = COALESCE(:lastError, last_error)
             WHERE id = :deliveryId AND status IN ('PENDING', 'RETRYING')""")
    boolean finishUnsuccessfully(@Bind("deliveryId") UUID deliveryId, @Bind("status") String status,
            @Bind("lastError") String lastError);

    @SqlUpdate("""
            UPDATE outbox_events SET status = 'PROCESSED', processed_at = now()
             WHERE id = :outboxId AND processed_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM deliveries
                                WHERE outbox_id = :outboxId AND status IN ('PENDING', 'RETRYING'))""")
    boolean markProcessed(@Bind("outboxId") UUID outboxId);
}
