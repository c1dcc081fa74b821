package dev.relaybox.service.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.config.PartnerFactory;
import dev.relaybox.service.config.PartnerFactory.FieldLocation;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.InboxStore;
import dev.relaybox.store.InboxStore.InboxRow;
import dev.relaybox.store.OutboxReplays.EventPayload;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.PayloadEditStore;
import dev.relaybox.workflows.inbound.InboxState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Replaces a dead letter's payload for its replay, inside the replay's transaction, and records the audit entry
 * beside it: the payload before, the new one, the changes, who and why. A refusal throws before the transaction
 * commits, so a refused edit changes nothing and replays nothing.
 *
 * <p>Outbound, the new payload is the replayed delivery's own: the event and its other deliveries keep the payload they
 * were sent (a resend to another endpoint sends that one), and the receiver is told with a {@code relaybox-edited}
 * header. A row quarantined before it had deliveries, which nobody was sent, gets its own payload replaced. An event
 * with deliveries still being attempted is refused: its deliveries' schedules are not to be disturbed.
 * Inbound, the event type and aggregate id are read again from the new payload where the partner's are in the body,
 * the partner's event id must stay as it is, and the signature is not checked again: it was verified at intake over
 * the partner's body, which the new one is not.
 */
public final class DeadLetterEdits {
    static final String NOT_RE_SIGNED = "verified at intake; edited payload not re-signed";

    private final Map<String, PartnerFactory> partners;
    private final long maxOutboxPayloadBytes;
    private final PayloadSchemas schemas;

    /**
     * @param partners the configured partners, whose field locations and body limit an inbound edit follows
     * @param maxOutboxPayloadBytes the largest outbound payload, as {@code POST /outbox} allows
     */
    public DeadLetterEdits(Map<String, PartnerFactory> partners, long maxOutboxPayloadBytes, PayloadSchemas schemas) {
        this.partners = Map.copyOf(partners);
        this.maxOutboxPayloadBytes = maxOutboxPayloadBytes;
        this.schemas = schemas;
    }

    /** Puts the correction in place and returns what the audit log records of it. */
    Map<String, Object> apply(Handle h, DeadLetterStore.Row deadLetter, PayloadCorrection correction) {
        String payload = Json.text(correction.payload());
        // Both sides of the diff are read by one mapper, so equal numbers compare equal.
        JsonNode edited = Json.parse(payload);
        Replaced replaced = deadLetter.source() == DeadLetterSource.OUTBOX
                ? outbound(h, deadLetter, edited, payload)
                : inbound(h, deadLetter, edited, payload);
        h.attach(PayloadEditStore.class)
                .record(new PayloadEditStore.Edit(
                        deadLetter.id(),
                        deadLetter.source(),
                        replaced.rowId(),
                        replaced.deliveryId(),
                        replaced.previousPayload(),
                        payload,
                        Json.text(replaced.changes()),
                        correction.reason(),
                        correction.actor(),
                        correction.declaredBy(),
                        replaced.signatureNote()));
        Map<String, Object> audited = new LinkedHashMap<>();
        audited.put("rowId", replaced.rowId());
        audited.put("deliveryId", replaced.deliveryId());
        audited.put("reason", correction.reason());
        audited.put("by", correction.declaredBy());
        audited.put("changes", replaced.changes());
        audited.put("previousPayloadSha256", sha256(replaced.previousPayload()));
        audited.put("payloadSha256", sha256(payload));
        audited.put("signature", replaced.signatureNote());
        return audited;
    }

    /**
     * {@code deliveryId}: the delivery whose own payload was corrected, null where the row's was (inbound, or an
     * outbox row quarantined before it had deliveries).
     */
    private record Replaced(
            UUID rowId,
            UUID deliveryId,
            String previousPayload,
            List<PayloadDiff.Change> changes,
            String signatureNote) {}

    private Replaced outbound(Handle h, DeadLetterStore.Row deadLetter, JsonNode edited, String payload) {
        // A row quarantined before it had deliveries is its dead letter's reference itself.
        UUID deliveryId = deadLetter.outboxId() != null ? deadLetter.reference() : null;
        UUID outboxId = deliveryId != null ? deadLetter.outboxId() : deadLetter.reference();
        OutboxStore store = h.attach(OutboxStore.class);
        EventPayload event = store.lockPayload(outboxId).orElseThrow(() -> missing("outbox event " + outboxId));
        if (!event.settled()) {
            throw ApiException.conflict(
                    "deliveries_in_flight",
                    "outbox event " + outboxId + " still has deliveries being attempted; replay it with a corrected"
                            + " payload once they have finished, or replay it without one");
        }
        String previous = deliveryId == null
                ? event.payload()
                : store.deliveryPayload(deliveryId).orElseThrow(() -> missing("delivery " + deliveryId));
        List<PayloadDiff.Change> changes = checked(event.eventType(), previous, edited, payload, maxOutboxPayloadBytes);
        // The catalog describes what Relaybox sends; a partner's payload is the partner's.
        schemas.problem(event.eventType(), edited).ifPresent(problem -> {
            throw new ApiException(422, "invalid_payload", problem);
        });
        boolean replaced = deliveryId == null
                ? store.replacePayload(outboxId, payload)
                : store.replaceDeliveryPayload(deliveryId, payload);
        if (!replaced) {
            throw new IllegalStateException("outbox event " + outboxId + " changed under its lock");
        }
        return new Replaced(outboxId, deliveryId, previous, changes, null);
    }

    private Replaced inbound(Handle h, DeadLetterStore.Row deadLetter, JsonNode edited, String payload) {
        InboxStore store = h.attach(InboxStore.class);
        InboxRow row =
                store.lock(deadLetter.reference()).orElseThrow(() -> missing("inbox event " + deadLetter.reference()));
        if (row.status() != InboxState.QUARANTINED) {
            throw ApiException.conflict(
                    "not_dead_lettered", "inbox event " + row.id() + " is " + row.status() + ", not quarantined");
        }
        PartnerFactory partner = partners.get(row.partnerName());
        if (partner == null) {
            throw new ApiException(
                    422,
                    "unknown_partner",
                    "partner \"" + row.partnerName() + "\" is no longer configured: nothing can read the new payload");
        }
        FieldLocation eventId = partner.getEventId();
        if (!eventId.inHeader()
                && !eventId.inBody(edited).filter(row.partnerEventId()::equals).isPresent()) {
            throw new ApiException(
                    422,
                    "event_id_changed",
                    "the partner's event id at " + eventId.pointer() + " must stay \"" + row.partnerEventId() + "\"");
        }
        String eventType = read(partner.getEventType(), edited, row.eventType());
        String aggregateId = read(partner.getAggregateId(), edited, row.aggregateId());
        List<PayloadDiff.Change> changes = checked(eventType, row.payload(), edited, payload, partner.maxBodyBytes());
        if (!store.replacePayload(row.id(), payload, eventType, aggregateId)) {
            throw new IllegalStateException("inbox event " + row.id() + " changed under its lock");
        }
        return new Replaced(row.id(), null, row.payload(), changes, NOT_RE_SIGNED);
    }

    /** A value the partner sends in a header stays as received; one in the body is read from the new payload. */
    private static String read(FieldLocation location, JsonNode edited, String received) {
        return location.inHeader() ? received : location.inBody(edited).orElse(null);
    }

    private List<PayloadDiff.Change> checked(
            String eventType, String previousPayload, JsonNode edited, String payload, long maxBytes) {
        if (payload.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            throw new ApiException(413, "payload_too_large", "the payload is larger than " + maxBytes + " bytes");
        }
        List<PayloadDiff.Change> changes = PayloadDiff.between(Json.parse(previousPayload), edited);
        if (changes.isEmpty()) {
            throw new ApiException(
                    422,
                    "payload_unchanged",
                    "the payload is the one stored; replay without a payload to send it as it is");
        }
        return changes;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static ApiException missing(String what) {
        return ApiException.conflict("source_missing", what + " is gone; there is nothing to replay");
    }
}
