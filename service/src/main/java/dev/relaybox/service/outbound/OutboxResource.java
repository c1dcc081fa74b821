package dev.relaybox.service.outbound;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.relaybox.activities.Traces;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.producer.IdempotentEnqueue;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.producer.OutboxWriteException;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.JsonBodyLimit;
import dev.relaybox.service.api.JsonBodyReader;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.api.StrictTypes;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.TenantStore;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code POST /outbox}: for producers that cannot share Relaybox's database transaction. The row is
 * committed before the answer; delivery happens later. With an {@code Idempotency-Key}, a retried request
 * returns the row it created the first time. The body is size- and storability-checked by {@link JsonBodyLimit}
 * and bound to a validated {@link EventRequest}; what depends on configuration (the aggregate types) and the
 * event-type catalog (the type's schema, {@link PublishCheck}) is checked here, before anything is stored. An event of
 * a deprecated type is stored, and the answer carries {@code Deprecation: true}.
 */
@Tag(name = "producer")
@Path("/outbox")
@RolesAllowed(Caller.PRODUCER)
@Produces(MediaType.APPLICATION_JSON)
public final class OutboxResource {
    static final String EVENT_TYPE = EventCatalog.NAME;
    public static final String AGGREGATE_TYPE = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}";
    private static final String NAME_RULE = "must be letters, digits, '.', '_' or '-' (at most 200)";

    private final OutboxStore outbox;
    private final List<String> aggregateTypes;
    private final PublishCheck publishing;
    private final TenantStore tenants;

    public OutboxResource(
            OutboxStore outbox, List<String> aggregateTypes, PublishCheck publishing, TenantStore tenants) {
        this.outbox = outbox;
        this.tenants = tenants;
        this.aggregateTypes = List.copyOf(aggregateTypes);
        this.publishing = publishing;
    }

    public record Accepted(UUID id, String status) {}

    static final String EXAMPLE_REQUEST = """
            {"eventType": "order.shipped", "aggregateType": "order", "aggregateId": "42",
             "payload": {"orderId": 42, "carrier": "DHL"}}""";

    /** The body; an unknown field is refused (400 {@code unknown_field}). An integer aggregateId is read as text. */
    @Schema(name = "OutboxEventRequest", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record EventRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = EVENT_TYPE)
            @NotNull
            @Pattern(regexp = EVENT_TYPE, message = NAME_RULE)
            String eventType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = AGGREGATE_TYPE)
            @NotNull
            @Pattern(regexp = AGGREGATE_TYPE, message = NAME_RULE)
            String aggregateType,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    maxLength = 200,
                    description = "at most 200 characters; an integer is accepted too")
            @NotBlank
            @Size(min = 1, max = 200)
            @JsonDeserialize(using = StrictTypes.TextOrWholeNumber.class)
            String aggregateId,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"object", "array"},
                    description = "a JSON object (or array): the body receivers get")
            @NotNull
            JsonNode payload,

            @Schema(
                    description = "the key of the tenant whose endpoints alone receive the event; without it, the "
                            + "endpoints that belong to no tenant receive it")
            @Pattern(regexp = TenantStore.KEY, message = TenantStore.KEY_RULE)
            String tenant) {
        private static final List<Object> FIELDS =
                List.of("eventType", "aggregateType", "aggregateId", "payload", "tenant");

        /** A misspelt field must not pass silently (the application's mapper ignores unknown fields elsewhere). */
        @JsonAnySetter
        void refuseUnknownField(String name, Object value) throws UnrecognizedPropertyException {
            throw new UnrecognizedPropertyException(
                    null, "unknown field \"" + name + "\"", JsonLocation.NA, EventRequest.class, name, FIELDS);
        }
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "enqueueEvent",
            summary = "Enqueue an outbound event for delivery to every subscribed endpoint",
            description =
                    "A type in the event-type catalog is validated against its latest schema: 422 invalid_payload "
                            + "names each failing JSON path of the payload. A type not in the catalog is 422 "
                            + "unknown_event_type when eventTypes.allowUnknown is false.",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = EventRequest.class),
                                            examples =
                                                    @ExampleObject(name = "order.shipped", value = EXAMPLE_REQUEST))),
            responses = {
                @ApiResponse(
                        responseCode = "202",
                        description = "stored; it is delivered after this answer. Deprecation: true when the event "
                                + "type is deprecated in the catalog",
                        content = @Content(schema = @Schema(implementation = Accepted.class))),
                @ApiResponse(
                        responseCode = "200",
                        description = "the same Idempotency-Key and body again: the first row",
                        content = @Content(schema = @Schema(implementation = Accepted.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "413", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "415", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response enqueue(
            @Parameter(
                            description = "makes retries safe: the same key and body store one row",
                            schema = @Schema(minLength = 1, maxLength = 200))
                    @HeaderParam("Idempotency-Key")
                    String idempotencyKey,
            @Parameter(
                            description = "the W3C trace context of the producer's span: the event's deliveries "
                                    + "continue its trace, and each receiver gets its attempt's traceparent",
                            schema = @Schema(maxLength = 55))
                    @HeaderParam(Traces.TRACEPARENT)
                    String traceparent,
            @NotNull(message = "is required: a JSON object") @Valid EventRequest request) {
        Span span = Traces.tracer()
                .spanBuilder("POST /outbox")
                .setParent(Traces.parent(traceparent))
                .setSpanKind(SpanKind.SERVER)
                .setAttribute("relaybox.event_type", request.eventType())
                .startSpan();
        try {
            Response answer = enqueue(idempotencyKey, request, event(request).inTrace(Traces.traceparent(span)));
            span.setAttribute("http.response.status_code", answer.getStatus());
            if (answer.getEntity() instanceof Accepted accepted) {
                span.setAttribute("relaybox.outbox_id", accepted.id().toString());
            }
            return answer;
        } catch (RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getMessage());
            throw e;
        } finally {
            span.end();
        }
    }

    private Response enqueue(String idempotencyKey, EventRequest request, OutboxEvent event) {
        boolean deprecated = published(request);
        if (idempotencyKey == null) {
            UUID id = storing(() -> outbox.enqueue(event));
            return answer(Response.accepted(new Accepted(id, "accepted")), deprecated);
        }
        if (idempotencyKey.isBlank() || idempotencyKey.length() > 200) {
            throw ApiException.badRequest("invalid_idempotency_key", "Idempotency-Key must be 1 to 200 characters");
        }
        IdempotentEnqueue result = storing(() -> outbox.enqueueIdempotent(event, idempotencyKey, hash(event)));
        if (result.conflict()) {
            throw ApiException.conflict(
                    "idempotency_key_reused",
                    "Idempotency-Key " + idempotencyKey + " was already used for a different request");
        }
        return answer(
                result.created()
                        ? Response.accepted(new Accepted(result.id(), "accepted"))
                        : Response.ok(new Accepted(result.id(), "duplicate")),
                deprecated);
    }

    /** Refuses what the catalog refuses; true when the event's type is deprecated. */
    private boolean published(EventRequest request) {
        PublishCheck.Verdict verdict = publishing.check(request.eventType(), request.payload());
        switch (verdict.outcome()) {
            case INVALID_PAYLOAD -> throw new ApiException(422, "invalid_payload", verdict.reason());
            case UNKNOWN_TYPE -> throw new ApiException(422, "unknown_event_type", verdict.reason());
            default -> {
                return verdict.outcome() == PublishCheck.Outcome.DEPRECATED;
            }
        }
    }

    private static Response answer(Response.ResponseBuilder answer, boolean deprecated) {
        return (deprecated ? answer.header("Deprecation", "true") : answer).build();
    }

    /** What a valid request may still not ask for: a reserved event type, an aggregate type not configured. */
    private OutboxEvent event(EventRequest request) {
        if (JdbcOutbox.isReserved(request.eventType())) {
            throw new ApiException(
                    422,
                    "reserved_event_type",
                    "eventType \"" + request.eventType() + "\" is reserved: " + JdbcOutbox.RESERVED_PREFIX
                            + "* events come only from Relaybox itself");
        }
        if (!aggregateTypes.isEmpty() && !aggregateTypes.contains(request.aggregateType())) {
            throw new ApiException(
                    422,
                    "unknown_aggregate_type",
                    "aggregateType \"" + request.aggregateType() + "\" is not one of " + aggregateTypes);
        }
        if (!request.payload().isContainerNode()) {
            throw ApiException.badRequest("invalid_request", "payload must be a JSON object or array");
        }
        if (request.tenant() != null) {
            TenantStore.Tenant tenant = tenants.find(request.tenant())
                    .orElseThrow(() ->
                            new ApiException(422, "unknown_tenant", "no tenant with key \"" + request.tenant() + "\""));
            if (!tenant.enabled()) {
                throw new ApiException(
                        422,
                        "tenant_disabled",
                        "tenant \"" + tenant.key() + "\" is disabled: it receives no new events");
            }
        }
        return new OutboxEvent(
                request.eventType(),
                request.aggregateType(),
                request.aggregateId(),
                request.payload().toString(),
                request.tenant());
    }

    private static <T> T storing(Supplier<T> insert) {
        try {
            return insert.get();
        } catch (OutboxWriteException e) {
            throw JsonBodyReader.refusedData(e).orElseThrow(() -> e);
        }
    }

    private static String hash(OutboxEvent event) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part :
                    List.of(event.eventType(), event.aggregateType(), event.aggregateId(), event.payloadJson())) {
                sha.update(part.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
