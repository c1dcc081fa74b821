package dev.relaybox.service.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.catalog.EventTypes.EventTypeDetail;
import dev.relaybox.service.catalog.EventTypes.EventTypeView;
import dev.relaybox.store.EventTypeStore.Definition;
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
import java.net.URI;
import java.util.List;

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
    static final String EXAMPLE = """
            {"name": "order.shipped", "description": "An order left the warehouse",
             "schema": {"type": "object", "required": ["orderId", "carrier"],
                        "properties": {"orderId": {"type": "string"}, "carrier": {"type": "string"}}},
             "example": {"orderId": "42", "carrier": "DHL"}}""";

    private final EventTypes eventTypes;

    public EventTypesResource(EventTypes eventTypes) {
        this.eventTypes = eventTypes;
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

    @GET
    @Operation(operationId = "listEventTypes", summary = "The event-type catalog, by name")
    public List<EventTypeView> list() {
        return eventTypes.list();
    }

    @GET
    @Path("/{name}")
    @Operation(operationId = "getEventType", summary = "One event type with every version of its schema")
    public EventTypeDetail get(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return eventTypes.get(name);
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
        EventTypeDetail created = eventTypes.create(new Definition(
                request.name(), request.description(), request.schema().toString(), text(request.example()), null));
        return Response.created(URI.create("/admin/event-types/" + request.name()))
                .entity(created)
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
        return eventTypes.revise(new Definition(
                name, request.description(), request.schema().toString(), text(request.example()), null));
    }

    @POST
    @Path("/{name}/deprecate")
    @Operation(
            operationId = "deprecateEventType",
            summary = "Deprecate an event type: it still publishes, and producers are warned")
    public EventTypeDetail deprecate(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return eventTypes.setDeprecated(name, true);
    }

    @POST
    @Path("/{name}/undeprecate")
    @Operation(operationId = "undeprecateEventType", summary = "Take an event type's deprecation back")
    public EventTypeDetail undeprecate(
            @Parameter(schema = @Schema(pattern = "^" + EventCatalog.NAME + "$")) @PathParam("name") String name) {
        return eventTypes.setDeprecated(name, false);
    }

    private static String text(JsonNode json) {
        return json == null || json.isNull() ? null : json.toString();
    }
}
