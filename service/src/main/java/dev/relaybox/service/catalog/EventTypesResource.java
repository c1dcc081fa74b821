package dev.relaybox.service.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventTypeStore;
import dev.relaybox.activities.catalog.EventTypeStore.Definition;
import dev.relaybox.activities.catalog.InvalidEventTypeException;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
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
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code /admin/event-types}: the catalog. A type has a JSON Schema (draft 2020-12) per version: {@code PUT} with
 * another schema makes a new version and keeps the old ones; the same schema makes none. A schema that does not
 * compile, or an example that does not match it, is refused with 422 and the reason; nothing is written.
 */
@Tag(name = "event-types")
@Path("/admin/event-types")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class EventTypesResource {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String EXAMPLE = """
            {"name": "order.shipped", "description": "An order left the warehouse",
             "schema": {"type": "object", "required": ["orderId", "carrier"],
                        "properties": {"orderId": {"type": "string"}, "carrier": {"type": "string"}}},
             "example": {"orderId": "42", "carrier": "DHL"}}""";

    private final Jdbi jdbi;
    private final EventCatalog catalog;

    public EventTypesResource(Jdbi jdbi, EventCatalog catalog) {
        this.jdbi = jdbi;
        this.catalog = catalog;
    }

    public record NewEventType(
            @NotNull @Pattern(regexp = EventCatalog.NAME, message = "must be letters, digits, '.', '_' or '-'")
            String name,

            @Size(max = 2000) String description,

            @Schema(
                    description = "a JSON Schema, draft 2020-12",
                    types = {"object"},
                    requiredMode = Schema.RequiredMode.REQUIRED)
            @NotNull
            JsonNode schema,

            @Schema(description = "a payload that validates against the schema")
            JsonNode example) {}

    public record Revision(
            @Size(max = 2000) String description,

            @Schema(
                    description = "a JSON Schema, draft 2020-12: a new version unless it is the latest's",
                    types = {"object"},
                    requiredMode = Schema.RequiredMode.REQUIRED)
            @NotNull
            JsonNode schema,

            @Schema(description = "a payload that validates against the schema; left out, the latest's stays")
            JsonNode example) {}

    public record EventTypeView(
            String name,
            String description,
            boolean deprecated,
            int latestVersion,
            Instant createdAt,
            Instant updatedAt) {
        /** The whole catalog, by name. */
        public static List<EventTypeView> all(Jdbi jdbi) {
            return jdbi.withExtension(EventTypeStore.class, EventTypeStore::list).stream()
                    .map(EventTypeView::of)
                    .toList();
        }

        static EventTypeView of(EventTypeStore.EventType type) {
            return new EventTypeView(
                    type.name(),
                    type.description(),
                    type.deprecated(),
                    type.latestVersion(),
                    type.createdAt(),
                    type.updatedAt());
        }
    }

    public record VersionView(int version, JsonNode schema, JsonNode example, Instant createdAt) {
        static VersionView of(EventTypeStore.Version version) {
            return new VersionView(
                    version.version(), json(version.schema()), json(version.example()), version.createdAt());
        }
    }

    /** A type with every version, newest first. */
    public record EventTypeDetail(
            String name,
            String description,
            boolean deprecated,
            int latestVersion,
            Instant createdAt,
            Instant updatedAt,
            List<VersionView> versions) {}

    @GET
    @Operation(operationId = "listEventTypes", summary = "The event-type catalog, by name")
    public List<EventTypeView> list() {
        return EventTypeView.all(jdbi);
    }

    @GET
    @Path("/{name}")
    @Operation(operationId = "getEventType", summary = "One event type with every version of its schema")
    public EventTypeDetail get(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return detail(name);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "createEventType",
            summary = "Add an event type to the catalog, at version 1",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = NewEventType.class),
                                            examples = @ExampleObject(name = "order.shipped", value = EXAMPLE))),
            responses = {
                @ApiResponse(
                        responseCode = "201",
                        description = "created",
                        content = @Content(schema = @Schema(implementation = EventTypeDetail.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response create(@NotNull @Valid NewEventType request) {
        boolean created = checked(() -> catalog.create(new Definition(
                request.name(), request.description(), request.schema().toString(), text(request.example()), null)));
        if (!created) {
            throw ApiException.conflict(
                    "event_type_exists",
                    "event type " + request.name() + " exists; PUT /admin/event-types/" + request.name()
                            + " revises it");
        }
        return Response.created(URI.create("/admin/event-types/" + request.name()))
                .entity(detail(request.name()))
                .build();
    }

    @PUT
    @Path("/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            operationId = "reviseEventType",
            summary = "Revise an event type: a schema other than the latest version's becomes a new version",
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = "revised; latestVersion says whether a version was added",
                        content = @Content(schema = @Schema(implementation = EventTypeDetail.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "404", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public EventTypeDetail revise(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name,
            @NotNull @Valid Revision request) {
        boolean found = checked(() -> catalog.revise(new Definition(
                        name, request.description(), request.schema().toString(), text(request.example()), null))
                .isPresent());
        if (!found) {
            throw notFound(name);
        }
        return detail(name);
    }

    @POST
    @Path("/{name}/deprecate")
    @Operation(
            operationId = "deprecateEventType",
            summary = "Deprecate an event type: it still publishes, and producers are warned")
    public EventTypeDetail deprecate(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return setDeprecated(name, true);
    }

    @POST
    @Path("/{name}/undeprecate")
    @Operation(operationId = "undeprecateEventType", summary = "Take an event type's deprecation back")
    public EventTypeDetail undeprecate(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return setDeprecated(name, false);
    }

    private EventTypeDetail setDeprecated(String name, boolean deprecated) {
        if (!jdbi.withExtension(EventTypeStore.class, store -> store.setDeprecated(name, deprecated))) {
            throw notFound(name);
        }
        return detail(name);
    }

    private EventTypeDetail detail(String name) {
        return jdbi.inTransaction(h -> {
            EventTypeStore store = h.attach(EventTypeStore.class);
            EventTypeStore.EventType type = store.find(name).orElseThrow(() -> notFound(name));
            return new EventTypeDetail(
                    type.name(),
                    type.description(),
                    type.deprecated(),
                    type.latestVersion(),
                    type.createdAt(),
                    type.updatedAt(),
                    store.versions(name).stream().map(VersionView::of).toList());
        });
    }

    /** A catalog change that may be refused: the refusal answers 422 with its code and reason. */
    private interface CatalogChange<T> {
        T apply() throws InvalidEventTypeException;
    }

    private static <T> T checked(CatalogChange<T> change) {
        try {
            return change.apply();
        } catch (InvalidEventTypeException e) {
            throw new ApiException(422, e.error(), e.getMessage());
        }
    }

    private static ApiException notFound(String name) {
        return ApiException.notFound("event_type_not_found", "no event type " + name + " in the catalog");
    }

    private static String text(JsonNode json) {
        return json == null || json.isNull() ? null : json.toString();
    }

    private static JsonNode json(String text) {
        try {
            return text == null ? null : JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
