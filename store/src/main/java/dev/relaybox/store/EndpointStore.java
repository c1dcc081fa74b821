package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.GetGeneratedKeys;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements on {@code endpoints}, {@code endpoint_state} and {@code endpoint_leases}: the subscribers and
 * their secrets, their controls (rate limit, in-flight slots, ordering, body format), their circuit breaker and
 * the slots deliveries hold. Every change to {@code endpoint_state} happens with its row locked
 * ({@link #lockState}), so workers and instances see one state. The reads that join deliveries and outbox rows
 * answer what admitting one delivery needs (its endpoint, its aggregate's order, what waits on the endpoint);
 * {@code deliveries.waiting_for} is the endpoint controls' own column. Re-sealing secrets at rest is
 * {@link EndpointSecretsStore}'s; what operators see of an endpoint's health is {@link EndpointHealthStore}'s.
 */
@RegisterConstructorMapper(Endpoint.class)
public interface EndpointStore extends SqlObject, EndpointAttemptStore {
    /** The operator's own endpoint; empty when one of that name exists. */
    default Optional<Endpoint> insert(String name, String url, String secret, List<String> eventTypes) {
        return insert(null, name, url, secret, eventTypes);
    }

    /** An endpoint of {@code tenant} (null: the operator's own); empty when the tenant has one of that name. */
    @SqlUpdate("""
            INSERT INTO endpoints (tenant, name, url, secret, event_types)
            VALUES (:tenant, :name, :url, :secret, :eventTypes)
            ON CONFLICT DO NOTHING""")
    @GetGeneratedKeys
    Optional<Endpoint> insert(
            @Bind("tenant") String tenant,
            @Bind("name") String name,
            @Bind("url") String url,
            @Bind("secret") @Sealed String secret,
            @Bind("eventTypes") List<String> eventTypes);

    /**
     * Makes a configured endpoint match its configuration; a disabled one stays disabled. A changed secret rotates
     * (the stored one keeps signing until {@code previousSecretExpiresAt}); sealed values differ on every write, so
     * the stored secret is opened to compare.
     */
    default void upsert(
            String name, String url, String secret, List<String> eventTypes, Instant previousSecretExpiresAt) {
        getHandle().useTransaction(h -> {
            EndpointStore store = h.attach(EndpointStore.class);
            SecretBox box = h.getConfig(SealedColumns.class).box();
            boolean changed = store.storedSecretOf(name)
                    .map(box::open)
                    .filter(secret::equals)
                    .isEmpty();
            store.upsertRow(name, url, secret, eventTypes, changed, previousSecretExpiresAt);
        });
    }

    @SqlQuery("SELECT secret FROM endpoints WHERE name = :name AND tenant IS NULL FOR UPDATE")
    Optional<String> storedSecretOf(@Bind("name") String name);

    @SqlUpdate("""
            INSERT INTO endpoints (name, url, secret, event_types)
            VALUES (:name, :url, :secret, :eventTypes)
            ON CONFLICT (name) WHERE tenant IS NULL DO UPDATE SET
                url = excluded.url,
                event_types = excluded.event_types,
                previous_secret = CASE WHEN :changed THEN endpoints.secret ELSE endpoints.previous_secret END,
                previous_secret_expires_at = CASE WHEN :changed THEN :previousSecretExpiresAt
                                                  ELSE endpoints.previous_secret_expires_at END,
                secret = CASE WHEN :changed THEN excluded.secret ELSE endpoints.secret END,
                updated_at = now()""")
    void upsertRow(
            @Bind("name") String name,
            @Bind("url") String url,
            @Bind("secret") @Sealed String secret,
            @Bind("eventTypes") List<String> eventTypes,
            @Bind("changed") boolean changed,
            @Bind("previousSecretExpiresAt") Instant previousSecretExpiresAt);

    @SqlQuery("SELECT * FROM endpoints WHERE id = :id")
    Optional<Endpoint> find(@Bind("id") UUID id);

    @SqlQuery("SELECT * FROM endpoints ORDER BY name")
    List<Endpoint> list();

    @SqlQuery("SELECT count(*) FROM endpoints WHERE tenant = :tenant")
    int countOfTenant(@Bind("tenant") String tenant);

    @SqlQuery("SELECT * FROM endpoints WHERE tenant = :tenant ORDER BY name")
    List<Endpoint> listOfTenant(@Bind("tenant") String tenant);

    @SqlUpdate("""
            UPDATE endpoints SET url = :url, event_types = :eventTypes, updated_at = now()
            WHERE id = :id""")
    boolean update(@Bind("id") UUID id, @Bind("url") String url, @Bind("eventTypes") List<String> eventTypes);

    @SqlUpdate("""
            UPDATE endpoints SET enabled = :enabled, disabled_reason = :reason, updated_at = now()
            WHERE id = :id""")
    boolean setEnabled(@Bind("id") UUID id, @Bind("enabled") boolean enabled, @Bind("reason") String reason);

    /** The new secret signs from now on; the old one keeps signing beside it until {@code graceUntil}. */
    @SqlUpdate("""
            UPDATE endpoints SET previous_secret = secret, previous_secret_expires_at = :graceUntil,
                                 secret = :secret, updated_at = now()
            WHERE id = :id""")
    boolean rotateSecret(
            @Bind("id") UUID id, @Bind("secret") @Sealed String secret, @Bind("graceUntil") Instant graceUntil);

    /** What admitting or settling one delivery needs, read in one query. */
    record DeliveryContext(
            UUID deliveryId,
            UUID outboxId,
            DeliveryStatus status,
            UUID endpointId,
            String endpointName,
            String tenant,
            boolean enabled,
            Double rateLimit,
            Integer rateBurst,
            Integer maxInFlight,
            boolean ordered,
            String aggregateType,
            String aggregateId,
            long seq) {
        public EndpointControls controls() {
            return new EndpointControls(rateLimit, rateBurst, maxInFlight, ordered, null);
        }

        public AggregateKey aggregate() {
            return new AggregateKey(aggregateType, aggregateId);
        }
    }

    @SqlQuery("""
            SELECT d.id AS delivery_id, d.outbox_id, d.status, e.id AS endpoint_id, e.name AS endpoint_name, e.tenant,
                   e.enabled,
                   e.rate_limit, e.rate_burst, e.max_in_flight, e.ordered, o.aggregate_type, o.aggregate_id, o.seq
              FROM deliveries d
              JOIN endpoints e ON e.id = d.endpoint_id
              JOIN outbox_events o ON o.id = d.outbox_id
             WHERE d.id = :deliveryId""")
    @RegisterConstructorMapper(DeliveryContext.class)
    Optional<DeliveryContext> deliveryContext(@Bind("deliveryId") UUID deliveryId);

    @SqlUpdate("INSERT INTO endpoint_state (endpoint_id) VALUES (:endpointId) ON CONFLICT (endpoint_id) DO NOTHING")
    void ensureState(@Bind("endpointId") UUID endpointId);

    @SqlQuery("SELECT * FROM endpoint_state WHERE endpoint_id = :endpointId FOR UPDATE")
    @RegisterConstructorMapper(EndpointState.class)
    EndpointState lockState(@Bind("endpointId") UUID endpointId);

    @SqlUpdate("""
            UPDATE endpoint_state SET rate_tat = :rateTat, circuit = :circuit,
                   consecutive_failures = :consecutiveFailures, failing_since = :failingSince, opened_at = :openedAt,
                   next_probe_at = :nextProbeAt, next_prober = :nextProber, probe_delivery = :probeDelivery,
                   probe_lease_until = :probeLeaseUntil, last_success_at = :lastSuccessAt,
                   last_failure_at = :lastFailureAt, updated_at = now()
             WHERE endpoint_id = :endpointId""")
    void saveState(@BindMethods EndpointState state);

    @SqlQuery("SELECT send_tat FROM endpoint_state WHERE endpoint_id = :endpointId AND send_tat IS NOT NULL")
    Optional<Instant> sendTat(@Bind("endpointId") UUID endpointId);

    @SqlUpdate("UPDATE endpoint_state SET send_tat = :sendTat WHERE endpoint_id = :endpointId")
    void setSendTat(@Bind("endpointId") UUID endpointId, @Bind("sendTat") Instant sendTat);

    /** An operator re-enabled the endpoint: it starts with a closed circuit and a clean record. */
    default void closeCircuit(UUID endpointId) {
        resetCircuit(endpointId, Circuit.CLOSED);
    }

    @SqlUpdate("""
            UPDATE endpoint_state SET circuit = :closed, consecutive_failures = 0, failing_since = NULL,
                   opened_at = NULL, next_probe_at = NULL, next_prober = NULL, probe_delivery = NULL,
                   probe_lease_until = NULL, updated_at = now()
             WHERE endpoint_id = :endpointId""")
    void resetCircuit(@Bind("endpointId") UUID endpointId, @Bind("closed") Circuit closed);

    /**
     * Is an earlier event of the same aggregate still to be delivered to this endpoint? Earlier rows not yet
     * planned count too: their deliveries do not exist yet but may be to this endpoint.
     */
    @SqlQuery("""
            SELECT o2.id FROM outbox_events o2
             WHERE o2.aggregate_type = :aggregateType AND o2.aggregate_id = :aggregateId AND o2.seq < :seq
               AND o2.processed_at IS NULL
               AND (EXISTS (SELECT 1 FROM deliveries d2
                             WHERE d2.outbox_id = o2.id AND d2.endpoint_id = :endpointId
                               AND d2.status = ANY(:attemptable))
                    OR NOT EXISTS (SELECT 1 FROM deliveries d3 WHERE d3.outbox_id = o2.id))
             ORDER BY o2.seq LIMIT 1""")
    Optional<UUID> earlierUnfinished(
            @Bind("endpointId") UUID endpointId,
            @Bind("aggregateType") String aggregateType,
            @Bind("aggregateId") String aggregateId,
            @Bind("seq") long seq,
            @Bind("attemptable") String[] attemptable);

    default Optional<UUID> earlierUnfinished(UUID endpointId, String aggregateType, String aggregateId, long seq) {
        return earlierUnfinished(endpointId, aggregateType, aggregateId, seq, DeliveryStatus.attemptableNames());
    }

    /** The outbox row of the next unfinished delivery of the same aggregate to this endpoint. */
    @SqlQuery("""
            SELECT o2.id FROM outbox_events o2 JOIN deliveries d2 ON d2.outbox_id = o2.id
             WHERE o2.aggregate_type = :aggregateType AND o2.aggregate_id = :aggregateId AND o2.seq > :seq
               AND d2.endpoint_id = :endpointId AND d2.status = ANY(:attemptable)
             ORDER BY o2.seq LIMIT 1""")
    Optional<UUID> nextInOrder(
            @Bind("endpointId") UUID endpointId,
            @Bind("aggregateType") String aggregateType,
            @Bind("aggregateId") String aggregateId,
            @Bind("seq") long seq,
            @Bind("attemptable") String[] attemptable);

    default Optional<UUID> nextInOrder(UUID endpointId, String aggregateType, String aggregateId, long seq) {
        return nextInOrder(endpointId, aggregateType, aggregateId, seq, DeliveryStatus.attemptableNames());
    }

    @SqlUpdate("DELETE FROM endpoint_leases WHERE endpoint_id = :endpointId AND expires_at < :now")
    void dropExpiredLeases(@Bind("endpointId") UUID endpointId, @Bind("now") Instant now);

    @SqlQuery("SELECT count(*) FROM endpoint_leases WHERE endpoint_id = :endpointId AND delivery_id <> :deliveryId")
    int leasesHeldByOthers(@Bind("endpointId") UUID endpointId, @Bind("deliveryId") UUID deliveryId);

    /**
     * Serialises the admissions of one tenant's deliveries until the transaction ends, so that its in-flight total
     * is counted and taken by one at a time (endpoints lock their own state row first, always in that order).
     */
    @SqlQuery("SELECT true FROM (SELECT pg_advisory_xact_lock(hashtext('relaybox-tenant-in-flight:' || :tenant))) l")
    boolean lockTenantSlots(@Bind("tenant") String tenant);

    @SqlQuery("""
            SELECT count(*) FROM endpoint_leases l JOIN endpoints e ON e.id = l.endpoint_id
             WHERE e.tenant = :tenant AND l.delivery_id <> :deliveryId AND l.expires_at >= :now""")
    int tenantLeasesHeldByOthers(
            @Bind("tenant") String tenant, @Bind("deliveryId") UUID deliveryId, @Bind("now") Instant now);

    @SqlUpdate("""
            INSERT INTO endpoint_leases (delivery_id, endpoint_id, expires_at) VALUES (:deliveryId, :endpointId, :expiresAt)
            ON CONFLICT (delivery_id) DO UPDATE SET expires_at = excluded.expires_at""")
    void holdLease(
            @Bind("deliveryId") UUID deliveryId,
            @Bind("endpointId") UUID endpointId,
            @Bind("expiresAt") Instant expiresAt);

    @SqlUpdate("DELETE FROM endpoint_leases WHERE delivery_id = :deliveryId")
    boolean releaseLease(@Bind("deliveryId") UUID deliveryId);

    @SqlUpdate("""
            UPDATE deliveries SET waiting_for = :waitingFor,
                   waiting_since = CASE WHEN waiting_for IS NOT DISTINCT FROM :waitingFor THEN waiting_since ELSE now() END
             WHERE id = :deliveryId""")
    void markWaiting(@Bind("deliveryId") UUID deliveryId, @Bind("waitingFor") String waitingFor);

    /** Outbox rows of the deliveries waiting on this endpoint for {@code waitingFor}, longest waiting first. */
    @SqlQuery("""
            SELECT outbox_id FROM deliveries
             WHERE endpoint_id = :endpointId AND waiting_for = :waitingFor AND status = ANY(:attemptable)
             ORDER BY waiting_since, id LIMIT :limit""")
    List<UUID> waiting(
            @Bind("endpointId") UUID endpointId,
            @Bind("waitingFor") String waitingFor,
            @Bind("limit") int limit,
            @Bind("attemptable") String[] attemptable);

    default List<UUID> waiting(UUID endpointId, String waitingFor, int limit) {
        return waiting(endpointId, waitingFor, limit, DeliveryStatus.attemptableNames());
    }

    /** A delivery waiting on its endpoint: the workflow to wake and the endpoint it waits on. */
    record Waiter(UUID outboxId, UUID endpointId) {}

    /** The deliveries waiting for {@code waitingFor} on any endpoint of the tenant, longest waiting first. */
    @SqlQuery("""
            SELECT d.outbox_id, d.endpoint_id FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
             WHERE e.tenant = :tenant AND d.waiting_for = :waitingFor AND d.status = ANY(:attemptable)
             ORDER BY d.waiting_since, d.id LIMIT :limit""")
    @RegisterConstructorMapper(Waiter.class)
    List<Waiter> waitingInTenant(
            @Bind("tenant") String tenant,
            @Bind("waitingFor") String waitingFor,
            @Bind("limit") int limit,
            @Bind("attemptable") String[] attemptable);

    default List<Waiter> waitingInTenant(String tenant, String waitingFor, int limit) {
        return waitingInTenant(tenant, waitingFor, limit, DeliveryStatus.attemptableNames());
    }

    @SqlQuery(
            "SELECT rate_limit, rate_burst AS burst, max_in_flight, ordered, payload_format FROM endpoints WHERE id = :id")
    @RegisterConstructorMapper(EndpointControls.class)
    Optional<EndpointControls> controls(@Bind("id") UUID endpointId);

    @SqlUpdate("""
            UPDATE endpoints SET rate_limit = :rateLimit, rate_burst = :burst, max_in_flight = :maxInFlight,
                   ordered = :ordered, payload_format = :payloadFormat, updated_at = now()
             WHERE id = :id""")
    boolean setControls(@Bind("id") UUID endpointId, @BindMethods EndpointControls controls);

    /** Sets the controls of the endpoint named {@code name}; false when there is none. */
    default boolean setControlsByName(String name, EndpointControls controls) {
        return idOf(name).map(id -> setControls(id, controls)).orElse(false);
    }

    @SqlQuery("SELECT id FROM endpoints WHERE name = :name AND tenant IS NULL")
    Optional<UUID> idOf(@Bind("name") String name);
}
