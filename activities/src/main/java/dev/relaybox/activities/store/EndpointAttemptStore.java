package dev.relaybox.activities.store;

import dev.relaybox.workflows.outbound.DeliveryStatus;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The endpoint controls' statements for the common case, an endpoint without limits whose circuit is closed: one
 * read admits a delivery, one update settles its answer. They are part of {@link EndpointStore}; they are declared
 * apart so that the per-attempt calls attach only these two methods (JDBI builds a handler for every method of the
 * interface on each attach, and {@link EndpointStore} has dozens).
 */
public interface EndpointAttemptStore {
    /** Of endpoint {@code e}: nothing holds its deliveries back (no rate limit, in-flight cap or order to keep). */
    String UNLIMITED = "e.rate_limit IS NULL AND e.max_in_flight IS NULL AND NOT e.ordered";

    /** Of endpoint state {@code s} (absent until the first settlement), bound with {@code :closed}. */
    String CIRCUIT_CLOSED = "COALESCE(s.circuit, :closed) = :closed";

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
     * Settles an answered attempt of a delivery that holds nothing, to an endpoint with no in-flight limit whose
     * circuit is closed with no failure counted: all that changes is when it last succeeded. The row lock the
     * update takes orders it with every other change of the state; {@code false} (nothing matched) means the
     * full settlement must decide.
     */
    @SqlUpdate("""
            UPDATE endpoint_state s
               SET last_success_at = CASE WHEN :delivered THEN :now ELSE s.last_success_at END, updated_at = now()
              FROM deliveries d
              JOIN endpoints e ON e.id = d.endpoint_id
             WHERE d.id = :deliveryId AND s.endpoint_id = d.endpoint_id
               AND d.waiting_for IS NULL AND e.max_in_flight IS NULL
               AND s.circuit = :closed AND s.consecutive_failures = 0 AND s.failing_since IS NULL
               AND s.probe_delivery IS DISTINCT FROM d.id
               AND NOT EXISTS (SELECT 1 FROM endpoint_leases l WHERE l.delivery_id = d.id)""")
    boolean settleHealthyAnswer(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("delivered") boolean delivered,
            @Bind("now") Instant now,
            @Bind("closed") Circuit closed);

    default boolean settleHealthyAnswer(UUID deliveryId, boolean delivered, Instant now) {
        return settleHealthyAnswer(deliveryId, delivered, now, Circuit.CLOSED);
    }
}
