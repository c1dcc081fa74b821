package dev.relaybox.store;

import dev.relaybox.workflows.outbound.DeliveryStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;
import org.jdbi.v3.sqlobject.SqlObject;

/** What operators see of each endpoint: its circuit, and its recent attempts, successes and latencies. */
public interface EndpointHealthStore extends SqlObject {
    /** The health of one endpoint as operators see it; attempts, successes and latencies over the last hour. */
    record Health(
            UUID endpointId,
            String endpointName,
            String tenant,
            boolean enabled,
            Circuit circuit,
            int consecutiveFailures,
            Instant failingSince,
            Instant openedAt,
            Instant nextProbeAt,
            Instant lastSuccessAt,
            Instant lastFailureAt,
            long attemptsLastHour,
            long successesLastHour,
            Double p50LatencyMs,
            Double p99LatencyMs,
            long inFlight,
            long waiting) {
        public Double successRate() {
            return attemptsLastHour == 0 ? null : (double) successesLastHour / attemptsLastHour;
        }
    }

    /** Each endpoint's health: its circuit, and its attempts since {@code :since}; {@link #health} adds the WHERE. */
    String HEALTH = """
            SELECT e.id AS endpoint_id, e.name AS endpoint_name, e.tenant, e.enabled, COALESCE(s.circuit, :closed) AS circuit,
                   COALESCE(s.consecutive_failures, 0) AS consecutive_failures, s.failing_since, s.opened_at,
                   s.next_probe_at, s.last_success_at, s.last_failure_at,
                   h.attempts AS attempts_last_hour, h.successes AS successes_last_hour,
                   h.p50 AS p50_latency_ms, h.p99 AS p99_latency_ms,
                   (SELECT count(*) FROM endpoint_leases l WHERE l.endpoint_id = e.id) AS in_flight,
                   (SELECT count(*) FROM deliveries w WHERE w.endpoint_id = e.id AND w.waiting_for IS NOT NULL
                       AND w.status = ANY(:attemptable)) AS waiting
              FROM endpoints e
              LEFT JOIN endpoint_state s ON s.endpoint_id = e.id
              LEFT JOIN LATERAL (
                   SELECT count(*) AS attempts,
                          count(*) FILTER (WHERE a.status_code BETWEEN 200 AND 299 OR a.broker_confirmed) AS successes,
                          percentile_cont(0.5) WITHIN GROUP (ORDER BY a.latency_ms) AS p50,
                          percentile_cont(0.99) WITHIN GROUP (ORDER BY a.latency_ms) AS p99
                     FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                    WHERE d.endpoint_id = e.id AND a.started_at > :since) h ON true
            """;

    /** The health of every endpoint, by name, attempts counted since {@code since}. */
    default List<Health> health(Instant since) {
        return getHandle()
                .createQuery(HEALTH + " ORDER BY e.name")
                .bind("since", since)
                .bind("closed", Circuit.CLOSED)
                .bindArray("attemptable", String.class, (Object[]) DeliveryStatus.attemptableNames())
                .map(ConstructorMapper.of(Health.class))
                .list();
    }

    /** The health of one endpoint, attempts counted since {@code since}; empty when it does not exist. */
    default Optional<Health> health(UUID endpointId, Instant since) {
        return getHandle()
                .createQuery(HEALTH + " WHERE e.id = :endpointId")
                .bind("endpointId", endpointId)
                .bind("since", since)
                .bind("closed", Circuit.CLOSED)
                .bindArray("attemptable", String.class, (Object[]) DeliveryStatus.attemptableNames())
                .map(ConstructorMapper.of(Health.class))
                .findOne();
    }
}
