package dev.relaybox.service.outbound;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.UUID;

/** {@code /admin/endpoints}: the operator's view of {@link Endpoints}, every tenant's and its own. */
@Tag(name = "endpoints")
@Path("/admin/endpoints")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class EndpointsResource {
    private final Endpoints endpoints;

    public EndpointsResource(Endpoints endpoints) {
        this.endpoints = endpoints;
    }

    @POST
    @Operation(
            operationId = "createEndpoint",
            summary = "Register an endpoint; the answer shows its signing secret, once",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = NewEndpoint.class),
                                            examples =
                                                    @ExampleObject(
                                                            name = "receiver",
                                                            value =
                                                                    "{\"name\": \"my-receiver\", \"url\": \"https://example.com/hooks\", \"eventTypes\": [\"order.*\"]}"))),
            responses = {
                @ApiResponse(
                        responseCode = "201",
                        description = "created; the only answer that shows the secret",
                        content = @Content(schema = @Schema(implementation = EndpointView.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response create(@NotNull @Valid NewEndpoint request) {
        if (request.tenant() != null && !endpoints.tenantExists(request.tenant())) {
            throw new ApiException(422, "unknown_tenant", "no tenant with key \"" + request.tenant() + "\"");
        }
        return Response.status(201)
                .entity(endpoints.create(request, request.tenant()))
                .build();
    }

    @GET
    @Operation(operationId = "listEndpoints", summary = "Every endpoint")
    public List<EndpointView> list() {
        return endpoints.list(null);
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getEndpoint", summary = "One endpoint")
    public EndpointView get(@PathParam("id") UUID id) {
        return endpoints.get(id, null);
    }

    @PATCH
    @Path("/{id}")
    @Operation(
            operationId = "changeEndpoint",
            summary = "Change an endpoint's URL, event types, filter, headers or controls, enable or disable it,"
                    + " rotate its secret")
    public EndpointView change(@PathParam("id") UUID id, @NotNull @Valid EndpointChange change) {
        return endpoints.change(id, change, null);
    }
}
