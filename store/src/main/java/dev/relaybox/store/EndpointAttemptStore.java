package dev.relaybox.store;

import dev.relaybox.workflows.outbound.DeliveryStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The endpoint controls' statements for the common case, an endpoint without limits whose circuit is closed: one
 * read admits a delivery, one read (and at most one update a second) settles its answer. They are part of
 * {@link EndpointStore}; they are declared apart so that the per-attempt calls attach only these few methods (JDBI
 * builds a handler for every method of the interface on each attach, and {@link EndpointStore} has dozens).
 */
public interface EndpointAttemptStore {
    /** Of endpoint {@code e}: nothing holds its deliveries back (no rate limit, in-flight cap or order to keep). */
    String UNLIMITED = "e.rate_limit IS NULL AND e.max_in_flight IS NULL AND NOT e.ordered";

    /** Of endpoint state {@code s} (absent until the first settlement), bound with {@code :closed}. */
    String CIRCUIT_CLOSED = "COALESCE(s.circuit, :closed) = :closed";

    /** Of delivery {@code d}, its endpoint {@code e} and state {@code s}: nothing held, nothing failing. */
    String HOLDS_NOTHING = " d.waiting_for IS NULL AND e.max_in_flight IS NULL"
            + " AND s.circuit = :closed AND s.consecutive_failures = 0 AND s.failing_since IS NULL"
            + " AND s.probe_delivery IS DISTINCT FROM d.id"
            + " AND NOT EXISTS (SELECT 1 FROM endpoint_leases l WHERE l.delivery_id = d.id)";

    /**
     * What admitting a delivery to an endpoint without limits needs, read without locking anything: such a
     * delivery may go at once while the circuit is closed and it waits for nothing.
     */
    record GateSnapshot(
            DeliveryStatus status,
            boolean enabled,
            UUID endpointId,
            boolean ordered,
            boolean unlimited,
            boolean circuitClosed,
            boolean waiting) {
        public boolean goesAtOnce() {
            return !status.attemptable() || !enabled || (unlimited && circuitClosed && !waiting);
        }
    }

    @SqlQuery("""
            SELECT d.status, e.enabled, e.id AS endpoint_id, e.ordered,
                   """ + UNLIMITED + " AS unlimited, " + CIRCUIT_CLOSED + """
                    AS circuit_closed,
                   d.waiting_for IS NOT NULL AS waiting
              FROM deliveries d
              JOIN endpoints e ON e.id = d.endpoint_id
              LEFT JOIN endpoint_state s ON s.endpoint_id = d.endpoint_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(GateSnapshot.class)
    Optional<GateSnapshot> gateSnapshot(@Bind("deliveryId") UUID deliveryId, @Bind("closed") Circuit closed);

    default Optional<GateSnapshot> gateSnapshot(UUID deliveryId) {
        return gateSnapshot(deliveryId, Circuit.CLOSED);
    }

    /**
     * How fresh an endpoint's recorded last success is kept: a healthy endpoint answering many deliveries a second
     * would otherwise have its state row written, and its lock taken, by every one of them.
     */
    Duration LAST_SUCCESS_RESOLUTION = Duration.ofSeconds(1);

    /**
     * Settles an answered attempt of a delivery that holds nothing, to an endpoint with no in-flight limit whose
     * circuit is closed with no failure counted: all that changes is when it last succeeded, written when the one
     * recorded is older than {@link #LAST_SUCCESS_RESOLUTION}. {@code false} (the endpoint is not in that state)
     * means the full settlement must decide.
     */
    default boolean settleHealthyAnswer(UUID deliveryId, boolean delivered, Instant now) {
        Optional<Boolean> recentSuccess =
                healthyWithRecentSuccess(deliveryId, now.minus(LAST_SUCCESS_RESOLUTION), Circuit.CLOSED);
        if (recentSuccess.isEmpty()) {
            return false;
        }
        // Read without a lock: an answer settled this way counts as settled before a failure settling beside it, as it
        // would had it committed first; the update, when due, is ordered with every other change by the row's lock.
        return !delivered || recentSuccess.get() || recordSuccess(deliveryId, now, Circuit.CLOSED);
    }

    /** Present when the delivery holds nothing and its endpoint is healthy: whether it succeeded since {@code since}. */
    @SqlQuery("""
            SELECT COALESCE(s.last_success_at >= :since, false)
              FROM deliveries d
              JOIN endpoints e ON e.id = d.endpoint_id
              JOIN endpoint_state s ON s.endpoint_id = d.endpoint_id
             WHERE d.id = :deliveryId AND""" + HOLDS_NOTHING)
    Optional<Boolean> healthyWithRecentSuccess(
            @Bind("deliveryId") UUID deliveryId, @Bind("since") Instant since, @Bind("closed") Circuit closed);

    @SqlUpdate("""
            UPDATE endpoint_state s SET last_success_at = :now, updated_at = now()
              FROM deliveries d
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId AND s.endpoint_id = d.endpoint_id AND""" + HOLDS_NOTHING)
    boolean recordSuccess(
            @Bind("deliveryId") UUID deliveryId, @Bind("now") Instant now, @Bind("closed") Circuit closed);
}
