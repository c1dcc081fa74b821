package dev.relaybox.store;

import dev.relaybox.workflows.outbound.OutboxStatus;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * The statements a dead letter's replay runs on {@code outbox_events}: sending rows through the dispatcher again and
 * replacing an event's payload for a corrected replay. Part of {@link OutboxStore}, which owns the table.
 */
public interface OutboxReplays extends SqlObject {

    /** An event's payload as stored (JSON text), with what an edit checks it against. */
    record EventPayload(UUID id, String eventType, OutboxStatus status, String payload) {
        /** No delivery of it is left to attempt (or it never started): a new payload changes no schedule in flight. */
        public boolean settled() {
            return status == OutboxStatus.PROCESSED || status == OutboxStatus.QUARANTINED;
        }
    }

    /**
     * A dead letter's replay, after {@link DeliveryStore#resetForReplay}: the rows of the replayed deliveries become
     * undispatched again, so the dispatcher starts the row's workflow, or finds it running and leaves the new
     * delivery to it (a running delivery workflow re-plans before it finishes). A row quarantined because it could
     * not start (its dead letter references the row itself) is dispatched again: if it was fixed it flows, if not it
     * is quarantined again with a new dead letter.
     */
    default void undispatchForReplay(List<UUID> references) {
        UUID[] ids = references.toArray(UUID[]::new);
        getHandle()
                .createUpdate("""
                        UPDATE outbox_events SET status = :to, dispatched_at = NULL, processed_at = NULL
                         WHERE id IN (SELECT outbox_id FROM deliveries WHERE id = ANY(:ids))""")
                .bind("to", OutboxStatus.PENDING)
                .bind("ids", ids)
                .execute();
        getHandle()
                .createUpdate("""
                        UPDATE outbox_events SET status = :to, dispatched_at = NULL
                         WHERE id = ANY(:ids) AND status = :quarantined""")
                .bind("to", OutboxStatus.PENDING)
                .bind("quarantined", OutboxStatus.QUARANTINED)
                .bind("ids", ids)
                .execute();
    }

    /** The event's payload, the row held until commit so that nothing sends or replaces it meanwhile. */
    @SqlQuery("SELECT id, event_type, status, payload::text AS payload FROM outbox_events WHERE id = :id FOR UPDATE")
    @RegisterConstructorMapper(EventPayload.class)
    Optional<EventPayload> lockPayload(@Bind("id") UUID outboxId);

    /** The payload one delivery is sent (what its detail shows): its own corrected one, or its event's. */
    @SqlQuery("""
            SELECT coalesce(d.edited_payload, o.payload)::text
              FROM deliveries d JOIN outbox_events o ON o.id = d.outbox_id
             WHERE d.id = :id""")
    Optional<String> deliveryPayload(@Bind("id") UUID deliveryId);

    /** Corrects one delivery's payload for its replay: the event and its other deliveries keep theirs. */
    @SqlUpdate("UPDATE deliveries SET edited_payload = CAST(:payload AS jsonb) WHERE id = :id")
    boolean replaceDeliveryPayload(@Bind("id") UUID deliveryId, @Bind("payload") String payload);

    /**
     * Replaces a settled event's payload (see {@link EventPayload#settled()}); false when the row is missing or has
     * deliveries in flight. For a row quarantined before it had deliveries: nobody was sent the old one.
     */
    default boolean replacePayload(UUID outboxId, String payload) {
        return getHandle()
                        .createUpdate("""
                                UPDATE outbox_events SET payload = CAST(:payload AS jsonb)
                                 WHERE id = :id AND status IN (:processed, :quarantined)""")
                        .bind("payload", payload)
                        .bind("id", outboxId)
                        .bind("processed", OutboxStatus.PROCESSED)
                        .bind("quarantined", OutboxStatus.QUARANTINED)
                        .execute()
                == 1;
    }
}
