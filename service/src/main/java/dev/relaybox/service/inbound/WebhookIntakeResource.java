package dev.relaybox.service.inbound;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.Traces;
import dev.relaybox.activities.inbound.SignatureVerifier;
import dev.relaybox.activities.inbound.Verification;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.JsonBodyReader;
import dev.relaybox.service.config.PartnerFactory;
import dev.relaybox.service.config.PartnerFactory.FieldLocation;
import dev.relaybox.store.InboxIntake;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.StatementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /webhooks/{partner}}: verify the signature on the raw bytes, store the event once under the
 * partner's event id, and answer before any business logic runs. A duplicate (the same id with the same body) is a
 * success, so the partner stops retrying; the same id with a different body is a 409 conflict, because an id the
 * signature may not cover must not silently drop the event sent under it. Refusals store nothing. The request
 * thread never waits on Temporal.
 */
@Tag(name = "intake")
@Path("/webhooks/{partner}")
@Produces(MediaType.APPLICATION_JSON)
public final class WebhookIntakeResource {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookIntakeResource.class);
    private final InboxIntake inbox;
    private final JsonBodyReader jsonBodyReader;
    private final Map<String, PartnerFactory> partners;
    private final IntakeMetrics metrics;

    public WebhookIntakeResource(
            InboxIntake inbox, ObjectMapper json, Map<String, PartnerFactory> partners, IntakeMetrics metrics) {
        this.inbox = inbox;
        this.jsonBodyReader = new JsonBodyReader(json);
        this.partners = Map.copyOf(partners);
        this.metrics = metrics;
    }

    public record Receipt(String status, UUID id) {}

    @POST
    @Consumes(MediaType.WILDCARD)
    @Operation(
            operationId = "receiveWebhook",
            summary = "A partner's webhook: verified, stored once, answered at once",
            description = "Signed per the partner's scheme (Standard Webhooks, Stripe, GitHub or an HMAC header) over "
                    + "the raw bytes; 401 bad or missing signature, 404 unknown partner, 400 no event id, 413 too large, "
                    + "409 an event id already received with a different body.",
            requestBody =
                    @RequestBody(
                            required = true,
                            description = "the partner's event, exactly as signed",
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(types = {"object"}),
                                            examples =
                                                    @ExampleObject(
                                                            name = "order.paid",
                                                            value =
                                                                    "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"42\"}}"))))
    public Receipt receive(
            @Parameter(schema = @Schema(pattern = "^" + PartnerFactory.NAME + "$")) @PathParam("partner")
                    String partnerName,
            @Context HttpHeaders headers,
            InputStream body)
            throws IOException {
        // The partner's traceparent, when it sends one, is the parent; the row keeps this span's context for the
        // decisions that follow.
        Span span = Traces.tracer()
                .spanBuilder("POST /webhooks/" + partnerName)
                .setParent(Traces.parent(headers.getHeaderString(Traces.TRACEPARENT)))
                .setSpanKind(SpanKind.SERVER)
                .setAttribute("relaybox.partner", partnerName)
                .startSpan();
        try {
            Receipt receipt = receive(partnerName, headers, body, Traces.traceparent(span));
            span.setAttribute("relaybox.receipt", receipt.status());
            span.setAttribute("relaybox.inbox_id", String.valueOf(receipt.id()));
            return receipt;
        } catch (ApiException e) {
            span.setStatus(StatusCode.ERROR, e.getMessage());
            throw e;
        } finally {
            span.end();
        }
    }

    private Receipt receive(String partnerName, HttpHeaders headers, InputStream body, String traceparent)
            throws IOException {
        PartnerFactory partner = partners.get(partnerName);
        if (partner == null) {
            throw refuse("unknown", 404, "unknown_partner", "no partner named \"" + partnerName + "\" is configured");
        }
        MediaType type = headers.getMediaType();
        if (type == null
                || !(type.getSubtype().equals("json") || type.getSubtype().endsWith("+json"))) {
            throw refuse(partnerName, 415, "unsupported_media_type", "webhooks must be sent as application/json");
        }
        byte[] raw = body.readNBytes((int) Math.min(Integer.MAX_VALUE - 1, partner.maxBodyBytes() + 1));
        if (raw.length > partner.maxBodyBytes()) {
            throw refuse(
                    partnerName,
                    413,
                    "payload_too_large",
                    "the body is larger than " + partner.maxBodyBytes() + " bytes");
        }
        Verification verification =
                SignatureVerifier.verify(partner.getSignature(), headers::getHeaderString, raw, Instant.now());
        if (!verification.valid()) {
            throw refuse(partnerName, 401, "invalid_signature", verification.reason());
        }
        JsonBodyReader.Body stored;
        try {
            stored = jsonBodyReader.read(raw);
        } catch (ApiException e) {
            metrics.rejected(partnerName, "invalid_json");
            throw e;
        }
        JsonNode payload = stored.tree();
        String eventId = find(partner.getEventId(), headers, payload)
                .orElseThrow(() -> refuse(
                        partnerName, 400, "missing_event_id", "no event id at " + describe(partner.getEventId())));
        if (eventId.length() > 500) {
            throw refuse(partnerName, 400, "invalid_event_id", "the event id is longer than 500 characters");
        }
        // A missing type or aggregate id is stored: processing quarantines it as poison, where operators see it.
        String eventType = find(partner.getEventType(), headers, payload).orElse(null);
        String aggregateId = find(partner.getAggregateId(), headers, payload).orElse(null);

        InboxIntake.Receipt receipt;
        try {
            receipt = inbox.receive(new InboxIntake.ReceivedEvent(
                    partnerName,
                    eventId,
                    eventType,
                    partner.getAggregateType(),
                    aggregateId,
                    stored.text(),
                    InboxIntake.ReceivedEvent.sha256(raw, fromHeaders(partner, eventType, aggregateId)),
                    traceparent));
        } catch (StatementException e) {
            throw JsonBodyReader.refusedData(e)
                    .map(refused -> {
                        metrics.rejected(partnerName, "invalid_json");
                        return refused;
                    })
                    .orElseThrow(() -> e);
        }
        if (receipt.arrival() == InboxIntake.Arrival.CONFLICT) {
            metrics.conflict(partnerName);
            LOG.warn(
                    "refused event {} of partner {}: inbox row {} holds a different body under that id; the first "
                            + "body stays and this one is not stored (a replay or a forged id if the partner did not "
                            + "reuse it)",
                    eventId,
                    partnerName,
                    receipt.id());
            throw new ApiException(
                    409,
                    "event_id_conflict",
                    "event id \"" + eventId + "\" was already received with a different body; the first body is kept"
                            + " and this one is not stored");
        }
        if (receipt.duplicate()) {
            metrics.duplicate(partnerName);
            return new Receipt("duplicate", receipt.id());
        }
        metrics.accepted(partnerName);
        return new Receipt("accepted", receipt.id());
    }

    private ApiException refuse(String partner, int status, String error, String reason) {
        metrics.rejected(partner, error);
        return new ApiException(status, error, reason);
    }

    private static Optional<String> find(FieldLocation location, HttpHeaders headers, JsonNode payload) {
        if (!location.inHeader()) {
            return location.inBody(payload);
        }
        String value = headers.getHeaderString(location.header());
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    /**
     * The type and aggregate id where they came from headers, which the body's hash must cover: the body alone would
     * make a captured request sent first under another type the real event's "duplicate".
     */
    private static List<String> fromHeaders(PartnerFactory partner, String eventType, String aggregateId) {
        List<String> values = new ArrayList<>();
        if (partner.getEventType().inHeader()) {
            values.add("eventType=" + eventType);
        }
        if (partner.getAggregateId().inHeader()) {
            values.add("aggregateId=" + aggregateId);
        }
        return values;
    }

    private static String describe(FieldLocation location) {
        return location.inHeader() ? "header " + location.header() : "JSON pointer " + location.pointer();
    }
}
