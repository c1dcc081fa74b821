package dev.relaybox.service.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.relaybox.producer.IdempotentEnqueue;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.producer.OutboxWriteException;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.api.StorableJson;
import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code POST /outbox}: for producers that cannot share Relaybox's database transaction. The row is
 * committed before the answer; delivery happens later. With an {@code Idempotency-Key}, a retried request
 * returns the row it created the first time.
 */
@Tag(name = "producer")
@Path("/outbox")
@RolesAllowed(Caller.PRODUCER)
@Produces(MediaType.APPLICATION_JSON)
public final class OutboxResource {
    static final Pattern EVENT_TYPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,199}");
    static final Pattern AGGREGATE_TYPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");
    private static final Set<String> FIELDS = Set.of("eventType", "aggregateType", "aggregateId", "payload");

    private final Jdbi jdbi;
    private final StorableJson storableJson;
    private final long maxBodyBytes;
    private final List<String> aggregateTypes;

    public OutboxResource(Jdbi jdbi, ObjectMapper json, long maxBodyBytes, List<String> aggregateTypes) {
        this.jdbi = jdbi;
        this.storableJson = new StorableJson(json);
        this.maxBodyBytes = maxBodyBytes;
        this.aggregateTypes = List.copyOf(aggregateTypes);
    }

    public record Accepted(UUID id, String status) {}

    static final String EXAMPLE_REQUEST = """
            {"eventType": "order.shipped", "aggregateType": "order", "aggregateId": "42",
             "payload": {"orderId": 42, "carrier": "DHL"}}""";

    /** The body as documented; {@link #parse} reads it by hand so that each refusal names its reason. */
    @Schema(name = "OutboxEventRequest", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record EventRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "[A-Za-z0-9][A-Za-z0-9_.-]{0,199}") String eventType,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}") String aggregateType,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, maxLength = 200,
                    description = "at most 200 characters; an integer is accepted too") String aggregateId,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED,
                    description = "a JSON object (or array): the body receivers get") Object payload) {}

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "enqueueEvent", summary = "Enqueue an outbound event for delivery to every subscribed endpoint",
            requestBody = @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = EventRequest.class),
                    examples = @ExampleObject(name = "order.shipped", value = EXAMPLE_REQUEST))),
            responses = {
                @ApiResponse(responseCode = "202", description = "stored; it is delivered after this answer",
                        content = @Content(schema = @Schema(implementation = Accepted.class))),
                @ApiResponse(responseCode = "200", description = "the same Idempotency-Key and body again: the first row",
                        content = @Content(schema = @Schema(implementation = Accepted.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "413", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "415", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)})
    public Response enqueue(@Parameter(description = "makes retries safe: the same key and body store one row")
            @HeaderParam("Idempotency-Key") String idempotencyKey, InputStream body) throws IOException {
        OutboxEvent event = parse(readLimited(body));
        if (idempotencyKey == null) {
            UUID id = storing(() -> jdbi.inTransaction(h -> Outbox.enqueue(h, event)));
            return Response.accepted(new Accepted(id, "accepted")).build();
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw ApiException.badRequest("invalid_idempotency_key", "Idempotency-Key must be 1 to 200 characters");
        }
        IdempotentEnqueue result = storing(
                () -> jdbi.inTransaction(h -> Outbox.enqueueIdempotent(h, event, idempotencyKey, hash(event))));
        if (result.conflict()) {
            throw ApiException.conflict("idempotency_key_reused",
                    "Idempotency-Key " + idempotencyKey + " was already used for a different request");
        }
        return result.created()
                ? Response.accepted(new Accepted(result.id(), "accepted")).build()
                : Response.ok(new Accepted(result.id(), "duplicate")).build();
    }

    private static <T> T storing(Supplier<T> insert) {
        try {
            return insert.get();
        } catch (OutboxWriteException e) {
            throw StorableJson.refusedData(e).orElseThrow(() -> e);
        }
    }

    private byte[] readLimited(InputStream body) throws IOException {
        byte[] bytes = body.readNBytes((int) Math.min(Integer.MAX_VALUE - 1, maxBodyBytes + 1));
        if (bytes.length > maxBodyBytes) {
            throw new ApiException(413, "payload_too_large", "the body is larger than " + maxBodyBytes + " bytes");
        }
        return bytes;
    }

    private OutboxEvent parse(byte[] bytes) {
        JsonNode root = storableJson.read(bytes).tree();
        if (!(root instanceof ObjectNode object)) {
            throw ApiException.badRequest("invalid_request", "the body must be a JSON object");
        }
        object.fieldNames().forEachRemaining(field -> {
            if (!FIELDS.contains(field)) {
                throw ApiException.badRequest("unknown_field", "unknown field \"" + field + "\"; expected " + FIELDS);
            }
        });
        String eventType = text(object, "eventType", EVENT_TYPE);
        if (JdbcOutbox.isReserved(eventType)) {
            throw new ApiException(422, "reserved_event_type", "eventType \"" + eventType + "\" is reserved: "
                    + JdbcOutbox.RESERVED_PREFIX + "* events come only from Relaybox itself");
        }
        String aggregateType = text(object, "aggregateType", AGGREGATE_TYPE);
        if (!aggregateTypes.isEmpty() && !aggregateTypes.contains(aggregateType)) {
            throw new ApiException(422, "unknown_aggregate_type",
                    "aggregateType \"" + aggregateType + "\" is not one of " + aggregateTypes);
        }
        JsonNode aggregateId = object.get("aggregateId");
        if (aggregateId == null || !(aggregateId.isTextual() || aggregateId.isIntegralNumber())
                || aggregateId.asText().isBlank() || aggregateId.asText().length() > 200) {
            throw ApiException.badRequest("invalid_request", "aggregateId is required: a string or integer, at most 200 characters");
        }
        JsonNode payload = object.get("payload");
        if (payload == null || !(payload.isObject() || payload.isArray())) {
            throw ApiException.badRequest("invalid_request", "payload is required and must be a JSON object or array");
        }
        return new OutboxEvent(eventType, aggregateType, aggregateId.asText(), payload.toString());
    }

    private static String text(ObjectNode object, String field, Pattern pattern) {
        JsonNode value = object.get(field);
        if (value == null || !value.isTextual()) {
            throw ApiException.badRequest("invalid_request", field + " is required and must be a string");
        }
        if (!pattern.matcher(value.asText()).matches()) {
            throw ApiException.badRequest("invalid_request",
                    field + " must be letters, digits, '.', '_' or '-' (at most 200), not \"" + value.asText() + "\"");
        }
        return value.asText();
    }

    private static String hash(OutboxEvent event) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : List.of(event.eventType(), event.aggregateType(), event.aggregateId(), event.payloadJson())) {
                sha.update(part.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
