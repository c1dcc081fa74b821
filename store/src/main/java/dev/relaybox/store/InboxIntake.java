package dev.relaybox.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;

/**
 * The intake's statement on {@code webhook_inbox}: store an arriving event once per partner and event id, with its
 * body's SHA-256, and say whether it is new, a duplicate (same body) or a conflict (another body under that id).
 */
public interface InboxIntake extends SqlObject {

    /**
     * A verified webhook as the intake stores it; a missing type or aggregate id is stored and rejected later.
     *
     * @param bodySha256 the SHA-256 of the body exactly as received (and of any field taken from a header), which
     *     tells a resend from a different event under the same id
     */
    record ReceivedEvent(
            String partner,
            String eventId,
            String eventType,
            String aggregateType,
            String aggregateId,
            String payloadJson,
            byte[] bodySha256,
            String traceparent) {

        /** An event whose body is {@code payloadJson} itself, as fixtures and internal callers store it. */
        public ReceivedEvent(
                String partner,
                String eventId,
                String eventType,
                String aggregateType,
                String aggregateId,
                String payloadJson) {
            this(
                    partner,
                    eventId,
                    eventType,
                    aggregateType,
                    aggregateId,
                    payloadJson,
                    sha256(payloadJson.getBytes(StandardCharsets.UTF_8)),
                    null);
        }

        public static byte[] sha256(byte[] body) {
            return sha256(body, List.of());
        }

        /**
         * The body's SHA-256, covering {@code headerFields} too when there are any (fields taken from headers, which
         * tell two requests with one body apart); without them it is the body's own hash, as stored before.
         */
        public static byte[] sha256(byte[] body, List<String> headerFields) {
            try {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                digest.update(body);
                for (String field : headerFields) {
                    digest.update((byte) 0);
                    digest.update(field.getBytes(StandardCharsets.UTF_8));
                }
                return digest.digest();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has SHA-256", e);
            }
        }
    }

    /** What became of an arriving event. */
    enum Arrival {
        /** Stored now. */
        NEW,
        /** Stored earlier with the same body (or before bodies were hashed): nothing more to do. */
        DUPLICATE,
        /** Stored earlier with a different body: this one is refused, the first one stays. */
        CONFLICT
    }

    /** The row that holds the event under its id, and what became of this arrival. */
    record Receipt(UUID id, Arrival arrival) {
        public boolean duplicate() {
            return arrival == Arrival.DUPLICATE;
        }
    }

    /**
     * Stores the event once per partner and event id: a second arrival, concurrent or later, finds the first row,
     * and is a duplicate when its body hashes the same and a conflict when not. A payload PostgreSQL refuses throws
     * the driver's error (SQLSTATE class 22) and stores nothing.
     */
    default Receipt receive(ReceivedEvent event) {
        Optional<UUID> inserted = getHandle()
                .createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type,
                                                   aggregate_id, payload, body_sha256, signature_verified,
                                                   traceparent)
                        VALUES (:partner, :eventId, :eventType, :aggregateType, :aggregateId, CAST(:payload AS jsonb),
                                :bodySha256, true, :traceparent)
                        ON CONFLICT (partner_name, partner_event_id) DO NOTHING
                        RETURNING id""")
                .bind("partner", event.partner())
                .bind("eventId", event.eventId())
                .bind("eventType", event.eventType())
                .bind("aggregateType", event.aggregateType())
                .bind("aggregateId", event.aggregateId())
                .bind("payload", event.payloadJson())
                .bind("bodySha256", event.bodySha256())
                .bind("traceparent", event.traceparent())
                .mapTo(UUID.class)
                .findOne();
        if (inserted.isPresent()) {
            return new Receipt(inserted.get(), Arrival.NEW);
        }
        return getHandle()
                .createQuery("""
                        SELECT id, body_sha256 FROM webhook_inbox
                         WHERE partner_name = :partner AND partner_event_id = :eventId""")
                .bind("partner", event.partner())
                .bind("eventId", event.eventId())
                .map((rs, ctx) -> {
                    byte[] stored = rs.getBytes("body_sha256");
                    boolean same = stored == null || MessageDigest.isEqual(stored, event.bodySha256());
                    return new Receipt(rs.getObject("id", UUID.class), same ? Arrival.DUPLICATE : Arrival.CONFLICT);
                })
                .findOne()
                // Purged by retention between the two statements: as the conflicting insert found it, a duplicate.
                .orElseGet(() -> new Receipt(null, Arrival.DUPLICATE));
    }
}
