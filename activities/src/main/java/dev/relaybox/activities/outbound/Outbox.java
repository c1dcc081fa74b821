package dev.relaybox.activities.outbound;

import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The producer side of the transactional outbox. Call {@link #enqueue} on the handle of the transaction
 * that makes the business change: both commit together or neither does. Relaybox's dispatcher is woken
 * by a trigger on commit and delivers the row later, at least once.
 */
public final class Outbox {
    /** Event types Relaybox emits itself ({@code relaybox.dead_letter.created}); producers may not. */
    public static final String RESERVED_PREFIX = "relaybox.";
    /** The one endpoint that receives {@code relaybox.*} events: the configured alert endpoint. */
    public static final String ALERT_ENDPOINT = "relaybox-alerts";

    private Outbox() {}

    /**
     * Writes the row on the caller's handle and returns its id, which receivers see as {@code webhook-id}.
     *
     * @throws IllegalArgumentException for a {@code relaybox.*} event type: those are Relaybox's own
     */
    public static UUID enqueue(Handle handle, OutboxEvent event) {
        refuseReserved(event);
        return insert(handle, event);
    }

    /**
     * For Relaybox's own events ({@code relaybox.dead_letter.created}): delivered only to the alert endpoint,
     * never to subscribers of {@code *}.
     */
    public static UUID enqueueRelayboxEvent(Handle handle, OutboxEvent event) {
        if (!isReserved(event.eventType())) {
            throw new IllegalArgumentException("not a Relaybox event type: " + event.eventType());
        }
        return insert(handle, event);
    }

    /** Whether {@code eventType} belongs to Relaybox ({@code relaybox.*}, in any letter case). */
    public static boolean isReserved(String eventType) {
        return eventType.toLowerCase(Locale.ROOT).startsWith(RESERVED_PREFIX);
    }

    private static void refuseReserved(OutboxEvent event) {
        if (isReserved(event.eventType())) {
            throw new IllegalArgumentException("event type " + event.eventType() + " is reserved: "
                    + RESERVED_PREFIX + "* events come only from Relaybox itself");
        }
    }

    private static UUID insert(Handle handle, OutboxEvent event) {
        return handle.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                        VALUES (:aggregateType, :aggregateId, :eventType, CAST(:payloadJson AS jsonb))
                        RETURNING id""")
                .bindMethods(event)
                .mapTo(UUID.class)
                .one();
    }

    /**
     * Like {@link #enqueue} but at most once per idempotency key: the same key with the same request hash
     * returns the existing row; the same key with a different hash returns a conflict.
     */
    public static Idempotent enqueueIdempotent(Handle handle, OutboxEvent event, String key, String requestHash) {
        refuseReserved(event);
        Optional<UUID> inserted = handle.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, idempotency_key, request_hash)
                        VALUES (:aggregateType, :aggregateId, :eventType, CAST(:payloadJson AS jsonb), :key, :hash)
                        ON CONFLICT (idempotency_key) DO NOTHING
                        RETURNING id""")
                .bindMethods(event)
                .bind("key", key)
                .bind("hash", requestHash)
                .mapTo(UUID.class)
                .findOne();
        if (inserted.isPresent()) {
            return new Idempotent(inserted.get(), true, false);
        }
        return handle.createQuery("SELECT id, request_hash FROM outbox_events WHERE idempotency_key = :key")
                .bind("key", key)
                .map((rs, ctx) -> new Idempotent(
                        rs.getObject("id", UUID.class), false, !requestHash.equals(rs.getString("request_hash"))))
                .one();
    }

    /** The outcome of an idempotent enqueue: the row's id, whether this call created it, and whether the key was reused for another request. */
    public record Idempotent(UUID id, boolean created, boolean conflict) {}
}
