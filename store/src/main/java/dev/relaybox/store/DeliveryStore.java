package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
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
public interface DeliveryStore extends SqlObject, DeliveryAttemptStore {

    record DeadLetterContext(
            UUID endpointId,
            String tenant,
            String endpointName,
            String url,
            String eventType,
            int attempts,
            UUID outboxId,
            String traceparent) {}

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
            Instant completedAt,
            UUID endpointId,
            String tenant) {}

    /**
     * One try, as recorded: {@code attempt} counts every try of the delivery; {@code again} says why a try was made
     * again, or that it opened a new schedule (null for every other); {@code brokerConfirmed}: a broker destination
     * confirmed the publish (its success, where an HTTP request has a 2xx).
     */
    record Attempt(
            int attempt,
            Instant startedAt,
            Integer statusCode,
            int latencyMs,
            String responseExcerpt,
            String error,
            String again,
            boolean brokerConfirmed) {}

    /**
     * What operators filter deliveries by; a null field does not filter. {@code endpoint} is a name or a URL,
     * {@code endpointId} one endpoint, {@code tenant} the endpoints of one tenant.
     */
    record Filter(
            DeliveryStatus status,
            String eventType,
            String endpoint,
            AggregateKey aggregate,
            Instant since,
            Instant until,
            UUID endpointId,
            String tenant) {}

    @SqlQuery("""
            SELECT e.id AS endpoint_id, e.tenant, e.name AS endpoint_name, e.url, o.event_type, d.attempts,
                   o.id AS outbox_id, o.traceparent
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(DeadLetterContext.class)
    DeadLetterContext deadLetterContext(@Bind("deliveryId") UUID deliveryId);

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

    /**
     * An operator's retry-now: the delivery's next attempt is due now. Recorded before its workflow is told, so that a
     * run started to take the delivery over attempts at once (it resumes from the row) and, should that start fail, the
     * reconciler finds the row overdue after its grace. Returns the outbox row; empty, and nothing changed, unless the
     * delivery is still to be attempted.
     */
    default Optional<UUID> markDueNow(UUID deliveryId) {
        return markDueNow(deliveryId, DeliveryStatus.attemptableNames());
    }

    @SqlQuery("""
            UPDATE deliveries SET next_attempt_at = now(), updated_at = now()
             WHERE id = :deliveryId AND status = ANY(:attemptable)
            RETURNING outbox_id""")
    Optional<UUID> markDueNow(@Bind("deliveryId") UUID deliveryId, @Bind("attemptable") String[] attemptable);

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
                   completed_at = NULL, schedule = schedule + 1, updated_at = now()
             WHERE id = ANY(:ids) AND status = :deadLettered""")
    int resetForReplay(
            @Bind("ids") UUID[] deliveryIds,
            @Bind("to") DeliveryStatus to,
            @Bind("deadLettered") DeliveryStatus deadLettered);

    /**
     * Sends a delivered delivery again (the same {@code webhook-id}): it starts a fresh schedule and its outbox row
     * becomes undispatched, so the dispatcher starts its workflow. False when it is not delivered.
     */
    default boolean resendDelivered(UUID deliveryId) {
        return resendDelivered(deliveryId, DeliveryStatus.DELIVERED, DeliveryStatus.PENDING, OutboxStatus.PENDING) == 1;
    }

    @SqlUpdate("""
            WITH resent AS (
                UPDATE deliveries SET status = :to, attempts = 0, next_attempt_at = NULL, completed_at = NULL,
                       schedule = schedule + 1, updated_at = now()
                 WHERE id = :id AND status = :delivered
                RETURNING outbox_id)
            UPDATE outbox_events SET status = :outboxPending, dispatched_at = NULL, processed_at = NULL
             WHERE id IN (SELECT outbox_id FROM resent)""")
    int resendDelivered(
            @Bind("id") UUID deliveryId,
            @Bind("delivered") DeliveryStatus delivered,
            @Bind("to") DeliveryStatus to,
            @Bind("outboxPending") OutboxStatus outboxPending);

    /** Attempts to one endpoint per hour since a time: how many succeeded (2xx, or confirmed) and how many failed. */
    record HourlyAttempts(Instant start, int delivered, int failed) {}

    @SqlQuery("""
            SELECT date_trunc('hour', a.started_at) AS start,
                   count(*) FILTER (WHERE a.status_code BETWEEN 200 AND 299 OR a.broker_confirmed) AS delivered,
                   count(*) FILTER (WHERE NOT (coalesce(a.status_code BETWEEN 200 AND 299, false) OR a.broker_confirmed))
                       AS failed
              FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
             WHERE d.endpoint_id = :endpointId AND a.started_at >= :since
             GROUP BY 1 ORDER BY 1""")
    @RegisterConstructorMapper(HourlyAttempts.class)
    List<HourlyAttempts> hourlyAttempts(@Bind("endpointId") UUID endpointId, @Bind("since") Instant since);

    String LISTED = """
            SELECT d.id, d.outbox_id, o.event_type, o.aggregate_type, o.aggregate_id,
                   e.name AS endpoint, e.url, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
                   d.created_at, d.completed_at, e.id AS endpoint_id, e.tenant
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
        if (filter.endpointId() != null) {
            where.add("d.endpoint_id = :endpointId");
            binds.put("endpointId", filter.endpointId());
        }
        if (filter.tenant() != null) {
            where.add("e.tenant = :tenant");
            binds.put("tenant", filter.tenant());
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
                        SELECT attempt, started_at, status_code, latency_ms, response_excerpt, error, again,
                               broker_confirmed
                          FROM delivery_attempts WHERE delivery_id = :id ORDER BY id""")
                .bind("id", deliveryId)
                .map((rs, ctx) -> new Attempt(
                        rs.getInt("attempt"),
                        Columns.instant(rs, "started_at"),
                        (Integer) rs.getObject("status_code"),
                        rs.getInt("latency_ms"),
                        rs.getString("response_excerpt"),
                        rs.getString("error"),
                        rs.getString("again"),
                        rs.getBoolean("broker_confirmed")))
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
                Columns.instant(rs, "next_attempt_at"),
                (Integer) rs.getObject("last_status"),
                rs.getString("last_error"),
                Columns.instant(rs, "created_at"),
                Columns.instant(rs, "completed_at"),
                rs.getObject("endpoint_id", UUID.class),
                rs.getString("tenant"));
    }
}
