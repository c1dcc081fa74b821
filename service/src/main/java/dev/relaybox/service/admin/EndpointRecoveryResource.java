package dev.relaybox.service.admin;

import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.recovery.EndpointRecovery;
import io.dropwizard.auth.Auth;
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
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;

/** {@code POST /admin/endpoints/{id}/recover}: {@link EndpointRecovery} for the operator. */
@Tag(name = "endpoints")
@Path("/admin/endpoints/{id}/recover")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class EndpointRecoveryResource {
    private final EndpointRecovery recovery;

    public EndpointRecoveryResource(EndpointRecovery recovery) {
        this.recovery = recovery;
    }

    @POST
    @Operation(
            operationId = "recoverEndpoint",
            summary = "Resend, once each, every delivery to this endpoint dead-lettered since a time",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = EndpointRecovery.RecoverRequest.class),
                                            examples =
                                                    @ExampleObject(
                                                            name = "after an outage",
                                                            value = "{\"since\": \"2026-01-31T08:00:00Z\"}"))),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = "recovered: the normal path takes them again",
                        content = @Content(schema = @Schema(implementation = EndpointRecovery.Recovered.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "404", ref = OpenApiDocument.ERROR_REF)
            })
    public EndpointRecovery.Recovered recover(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @Valid EndpointRecovery.RecoverRequest request) {
        return recovery.recover(id, request, caller.naming(request == null ? null : request.by()), null);
    }
}
