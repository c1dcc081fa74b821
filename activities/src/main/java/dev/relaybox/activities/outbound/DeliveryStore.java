package dev.relaybox.activities.outbound;

import dev.relaybox.activities.store.Cursor;
import dev.relaybox.activities.store.Page;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement on {@code deliveries} and {@code delivery_attempts}. Status changes are guarded by the statuses
 * {@link DeliveryStatus} allows to make them: {@code false} means someone else finished the delivery first.
 */
public interface DeliveryStore extends SqlObject {

    /** {@code nextAttemptAt}: when a retrying delivery's next attempt is due, as its workflow recorded it. */
    record Target(UUID deliveryId, String endpointName, String url, int attempts, Instant nextAttemptAt) {}

    /** Everything one attempt needs, read in one query. */
    record AttemptContext(
            UUID deliveryId,
            UUID outboxId,
            DeliveryStatus status,
            String payload,
            UUID endpointId,
            String endpointName,
            String url,
            String secret,
            String previousSecret,
            Instant previousSecretExpiresAt,
            boolean enabled,
            String disabledReason,
            boolean rateLimited) {}

    record DeadLetterContext(String endpointName, String url, String eventType, int attempts) {}

    /** A delivery as operators list it. */
    record Listed(
            UUID id,
            UUID outboxId,
            String eventType,
            AggregateKey aggregate,
            String endpoint,
            String url,
            DeliveryStatus status,
            int attempts,
            Instant nextAttemptAt,
            Integer lastStatus,
            String lastError,
            Instant createdAt,
            Instant completedAt) {}

    /** One HTTP try, as recorded. */
    record Attempt(
            int attempt, Instant startedAt, Integer statusCode, int latencyMs, String responseExcerpt, String error) {}

    /** What operators filter deliveries by; a null field does not filter. {@code endpoint} is a name or a URL. */
    record Filter(
            DeliveryStatus status,
            String eventType,
            String endpoint,
            AggregateKey aggregate,
            Instant since,
            Instant until) {}

    @SqlQuery("""
            SELECT e.name AS endpoint_name, e.url, o.event_type, d.attempts
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(DeadLetterContext.class)
    DeadLetterContext deadLetterContext(@Bind("deliveryId") UUID deliveryId);

    /**
     * Subscribes the row to the endpoints enabled now, once: a row re-run later (replay, reconciler) keeps
     * the deliveries it had rather than fanning out to endpoints created since. A disabled endpoint gets its
     * delivery too, PAUSED until it is enabled again (the endpoint row is share-locked, so an enabling that
     * commits meanwhile either sees the paused row or is seen as enabled). Relaybox's own
     * {@code relaybox.*} events (alerts naming other endpoints' URLs and errors) go only to the alert
     * endpoint, whatever other filters say.
     */
    default int createDeliveries(UUID outboxId) {
        return createDeliveries(outboxId, DeliveryStatus.PENDING, DeliveryStatus.PAUSED);
    }

    @SqlUpdate("""
            INSERT INTO deliveries (outbox_id, endpoint_id, status)
            SELECT o.id, e.id, CASE WHEN e.enabled THEN :pending ELSE :paused END
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
    int createDeliveries(
            @Bind("outboxId") UUID outboxId,
            @Bind("pending") DeliveryStatus pending,
            @Bind("paused") DeliveryStatus paused);

    /**
     * Pauses an unfinished delivery whose endpoint is disabled. The endpoint row is share-locked and read
     * again, so an endpoint enabled meanwhile is never left with a paused delivery: {@code false} then.
     */
    default boolean pauseWhileDisabled(UUID deliveryId, UUID endpointId) {
        return pauseWhileDisabled(
                deliveryId, endpointId, DeliveryStatus.PAUSED, DeliveryStatus.before(DeliveryStatus.PAUSED));
    }

    @SqlUpdate("""
            WITH disabled AS (SELECT id FROM endpoints WHERE id = :endpointId AND NOT enabled FOR SHARE)
            UPDATE deliveries SET status = :to, next_attempt_at = NULL, updated_at = now()
             WHERE id = :deliveryId AND status = ANY(:from) AND EXISTS (SELECT 1 FROM disabled)""")
    boolean pauseWhileDisabled(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("endpointId") UUID endpointId,
            @Bind("to") DeliveryStatus to,
            @Bind("from") String[] from);

    /**
     * Call in the transaction that enables the endpoint: its paused deliveries start a fresh schedule, and
     * their outbox rows become undispatched again, so the dispatcher (re)starts their workflows. Returns how
     * many outbox rows were resumed.
     */
    default int resumePaused(UUID endpointId) {
        return resumePaused(endpointId, DeliveryStatus.PAUSED, DeliveryStatus.PENDING, OutboxStatus.PENDING);
    }

    @SqlUpdate("""
            WITH resumed AS (
                UPDATE deliveries SET status = :to, attempts = 0, next_attempt_at = NULL, completed_at = NULL,
                       updated_at = now()
                 WHERE endpoint_id = :endpointId AND status = :paused
                RETURNING outbox_id)
            UPDATE outbox_events SET status = :outboxPending, dispatched_at = NULL, processed_at = NULL
             WHERE id IN (SELECT outbox_id FROM resumed)""")
    int resumePaused(
            @Bind("endpointId") UUID endpointId,
            @Bind("paused") DeliveryStatus paused,
            @Bind("to") DeliveryStatus to,
            @Bind("outboxPending") OutboxStatus outboxPending);

    default List<Target> unfinished(UUID outboxId) {
        return unfinished(outboxId, DeliveryStatus.attemptableNames());
    }

    @SqlQuery("""
            SELECT d.id AS delivery_id, e.name AS endpoint_name, e.url, d.attempts, d.next_attempt_at
              FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.outbox_id = :outboxId AND d.status = ANY(:attemptable)
             ORDER BY e.name""")
    @RegisterConstructorMapper(Target.class)
    List<Target> unfinished(@Bind("outboxId") UUID outboxId, @Bind("attemptable") String[] attemptable);

    @SqlQuery("""
            SELECT d.id AS delivery_id, d.outbox_id, d.status,
                   -- The body sent: the Standard Webhooks envelope unless the endpoint asks for the raw payload.
                   CASE WHEN e.payload_format = 'raw' THEN o.payload::text
                        ELSE json_build_object('type', o.event_type,
                                 'timestamp', to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                 'data', o.payload)::text
                   END AS payload, e.id AS endpoint_id,
                   e.name AS endpoint_name, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
                   e.enabled, e.disabled_reason, e.rate_limit IS NOT NULL AS rate_limited
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(AttemptContext.class)
    Optional<AttemptContext> attemptContext(@Bind("deliveryId") UUID deliveryId);

    @SqlUpdate("""
            INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
            VALUES (:deliveryId, :attempt, :startedAt, :statusCode, :latencyMs, :responseExcerpt, :error)""")
    void recordAttempt(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("attempt") int attempt,
            @Bind("startedAt") Instant startedAt,
            @Bind("statusCode") Integer statusCode,
            @Bind("latencyMs") int latencyMs,
            @Bind("responseExcerpt") String responseExcerpt,
            @Bind("error") String error);

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

    default boolean markRetrying(UUID deliveryId, Instant nextAttemptAt, String lastError) {
        return markRetrying(
                deliveryId,
                nextAttemptAt,
                lastError,
                DeliveryStatus.RETRYING,
                DeliveryStatus.before(DeliveryStatus.RETRYING));
    }

    @SqlUpdate("""
            UPDATE deliveries SET status = :to, next_attempt_at = :nextAttemptAt, last_error = :lastError,
                   updated_at = now()
             WHERE id = :deliveryId AND status = ANY(:from)""")
    boolean markRetrying(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("nextAttemptAt") Instant nextAttemptAt,
            @Bind("lastError") String lastError,
            @Bind("to") DeliveryStatus to,
            @Bind("from") String[] from);

    /** Ends an unfinished delivery as DEAD_LETTERED or CANCELLED. */
    default boolean finishUnsuccessfully(UUID deliveryId, DeliveryStatus status, String lastError) {
        if (!status.finished() || status == DeliveryStatus.DELIVERED) {
            throw new IllegalArgumentException(status + " is not an unsuccessful end");
        }
        return finishUnsuccessfully(deliveryId, status, lastError, DeliveryStatus.before(status));
    }

    @SqlUpdate("""
            UPDATE deliveries SET status = :status, next_attempt_at = NULL, completed_at = now(), updated_at = now(),
                   last_error = COALESCE(:lastError, last_error)
             WHERE id = :deliveryId AND status = ANY(:from)""")
    boolean finishUnsuccessfully(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("status") DeliveryStatus status,
            @Bind("lastError") String lastError,
            @Bind("from") String[] from);

    /**
     * A dead letter's replay: the dead-lettered deliveries among {@code deliveryIds} start a fresh schedule. Their
     * outbox rows are made undispatched by {@link OutboxStore#undispatchForReplay}, in the same transaction.
     */
    default int resetForReplay(List<UUID> deliveryIds) {
        return resetForReplay(deliveryIds.toArray(UUID[]::new), DeliveryStatus.PENDING, DeliveryStatus.DEAD_LETTERED);
    }

    @SqlUpdate("""
            UPDATE deliveries SET status = :to, attempts = 0, next_attempt_at = NULL,
                   completed_at = NULL, updated_at = now()
             WHERE id = ANY(:ids) AND status = :deadLettered""")
    int resetForReplay(
            @Bind("ids") UUID[] deliveryIds,
            @Bind("to") DeliveryStatus to,
            @Bind("deadLettered") DeliveryStatus deadLettered);

    String LISTED = """
            SELECT d.id, d.outbox_id, o.event_type, o.aggregate_type, o.aggregate_id,
                   e.name AS endpoint, e.url, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
                   d.created_at, d.completed_at
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
            """;

    /** Newest first, after {@code after} (null: from the newest), with only the given filters in the WHERE. */
    default Page<Listed> list(Filter filter, Cursor after, int limit) {
        List<String> where = new ArrayList<>();
        Map<String, Object> binds = new HashMap<>();
        if (filter.status() != null) {
            where.add("d.status = :status");
            binds.put("status", filter.status().name());
        }
        if (filter.eventType() != null) {
            where.add("o.event_type = :eventType");
            binds.put("eventType", filter.eventType());
        }
        if (filter.endpoint() != null) {
            where.add("(e.name = :endpoint OR e.url = :endpoint)");
            binds.put("endpoint", filter.endpoint());
        }
        if (filter.aggregate() != null) {
            where.add("o.aggregate_type = :aggregateType AND o.aggregate_id = :aggregateId");
            binds.put("aggregateType", filter.aggregate().type());
            binds.put("aggregateId", filter.aggregate().id());
        }
        if (filter.since() != null) {
            where.add("d.created_at >= :since");
            binds.put("since", filter.since());
        }
        if (filter.until() != null) {
            where.add("d.created_at < :until");
            binds.put("until", filter.until());
        }
        if (after != null) {
            where.add("(d.created_at, d.id) < (:afterAt, :afterId)");
            binds.put("afterAt", after.at());
            binds.put("afterId", after.id());
        }
        List<Listed> fetched = getHandle()
                .createQuery(LISTED
                        + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                        + " ORDER BY d.created_at DESC, d.id DESC LIMIT :limit")
                .bindMap(binds)
                .bind("limit", limit + 1)
                .map(DeliveryStore::listed)
                .list();
        return Page.of(fetched, limit, d -> new Cursor(d.createdAt(), d.id()));
    }

    default Optional<Listed> find(UUID deliveryId) {
        return getHandle()
                .createQuery(LISTED + " WHERE d.id = :id")
                .bind("id", deliveryId)
                .map(DeliveryStore::listed)
                .findOne();
    }

    /** Every attempt of the delivery, first to last. */
    default List<Attempt> attempts(UUID deliveryId) {
        return getHandle()
                .createQuery("""
                        SELECT attempt, started_at, status_code, latency_ms, response_excerpt, error
                          FROM delivery_attempts WHERE delivery_id = :id ORDER BY id""")
                .bind("id", deliveryId)
                .map((rs, ctx) -> new Attempt(
                        rs.getInt("attempt"),
                        instant(rs, "started_at"),
                        (Integer) rs.getObject("status_code"),
                        rs.getInt("latency_ms"),
                        rs.getString("response_excerpt"),
                        rs.getString("error")))
                .list();
    }

    private static Listed listed(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Listed(
                rs.getObject("id", UUID.class),
                rs.getObject("outbox_id", UUID.class),
                rs.getString("event_type"),
                new AggregateKey(rs.getString("aggregate_type"), rs.getString("aggregate_id")),
                rs.getString("endpoint"),
                rs.getString("url"),
                DeliveryStatus.valueOf(rs.getString("status")),
                rs.getInt("attempts"),
                instant(rs, "next_attempt_at"),
                (Integer) rs.getObject("last_status"),
                rs.getString("last_error"),
                instant(rs, "created_at"),
                instant(rs, "completed_at"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
