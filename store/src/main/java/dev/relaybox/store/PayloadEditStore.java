package dev.relaybox.store;

import java.util.UUID;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every write to {@code payload_edits}: the audit entry of a dead letter replayed with a corrected payload, written in
 * the replay's transaction. Entries are never changed; they go with their dead letter when retention purges it (the
 * {@code audit_log} keeps what was changed, by whom and why, for good). The story reads them
 * ({@link StoryQueries#payloadEdits}).
 */
public interface PayloadEditStore {

    /**
     * One edit. Payloads and {@code changes} are JSON text; {@code actor} is the caller's token ({@code admin token
     * 1f0c3a9e}), {@code declaredBy} the name the operator gave, if any; {@code deliveryId} the outbound delivery whose
     * payload it corrected, null where the row's own payload was (inbound, or an outbox row that never had deliveries).
     */
    record Edit(
            UUID deadLetterId,
            DeadLetterSource source,
            UUID rowId,
            UUID deliveryId,
            String previousPayload,
            String payload,
            String changes,
            String reason,
            String actor,
            String declaredBy,
            String signatureNote) {}

    @SqlUpdate("""
            INSERT INTO payload_edits (dead_letter_id, source, row_id, delivery_id, previous_payload, payload, changes,
                                       reason, actor, declared_by, signature_note)
            VALUES (:deadLetterId, :source, :rowId, :deliveryId, CAST(:previousPayload AS jsonb), CAST(:payload AS jsonb),
                    CAST(:changes AS jsonb), :reason, :actor, :declaredBy, :signatureNote)""")
    void record(@BindMethods Edit edit);
}
