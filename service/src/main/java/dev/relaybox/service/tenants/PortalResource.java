package dev.relaybox.service.tenants;

import dev.relaybox.service.admin.ListParams;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.catalog.EventTypes;
import dev.relaybox.service.outbound.EndpointView;
import dev.relaybox.service.outbound.Endpoints;
import dev.relaybox.service.recovery.EndpointRecovery;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import io.dropwizard.auth.Auth;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.UUID;

/**
 * {@code /portal/api}: what a tenant's customer may do through a portal link, and nothing beyond its own tenant. Each
 * route takes the tenant from the caller, never from the request, and goes through the same code as the admin API
 * with that tenant as its scope, so another tenant's ids answer 404 exactly as ids that do not exist.
 */
@Tag(name = "portal")
@Path("/portal/api")
@RolesAllowed(Caller.PORTAL)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class PortalResource {
    private final Portal portal;
    private final Endpoints endpoints;
    private final TenantDeliveries deliveries;

    public PortalResource(Portal portal, Endpoints endpoints, TenantDeliveries deliveries) {
        this.portal = portal;
        this.endpoints = endpoints;
        this.deliveries = deliveries;
    }

    /** What {@code POST …/test} answers: the test event's outbox row. */
    public record TestEvent(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID outboxId) {}

    /** What {@code POST …/resend} answers. */
    public record Resending(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, allowableValues = "resending")
            String status) {
        static final Resending NOW = new Resending("resending");
    }

    @GET
    @Path("/me")
    @Operation(operationId = "portalMe", summary = "The tenant this link opens, and its portal theme")
    public Portal.Me me(@Parameter(hidden = true) @Auth Caller caller) {
        return portal.me(caller.tenant());
    }

    @GET
    @Path("/event-types")
    @Operation(operationId = "portalEventTypes", summary = "The event types an endpoint may subscribe to")
    public List<EventTypes.EventTypeView> eventTypes() {
        return portal.eventTypes();
    }

    @GET
    @Path("/endpoints")
    @Operation(operationId = "portalListEndpoints", summary = "The tenant's endpoints")
    public List<EndpointView> listEndpoints(@Parameter(hidden = true) @Auth Caller caller) {
        return endpoints.list(caller.tenant());
    }

    @POST
    @Path("/endpoints")
    @Operation(
            operationId = "portalCreateEndpoint",
            summary = "Add an endpoint; the answer shows its secret, once",
            responses =
                    @ApiResponse(
                            responseCode = "201",
                            description = "created; the only answer that shows the secret",
                            content = @Content(schema = @Schema(implementation = EndpointView.class))))
    public Response createEndpoint(
            @Parameter(hidden = true) @Auth Caller caller, @NotNull @Valid PortalNewEndpoint request) {
        return Response.status(201)
                .entity(portal.createEndpoint(caller.tenant(), request))
                .build();
    }

    @GET
    @Path("/endpoints/{id}")
    @Operation(operationId = "portalGetEndpoint", summary = "One of the tenant's endpoints")
    public EndpointView getEndpoint(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return endpoints.get(id, caller.tenant());
    }

    @PATCH
    @Path("/endpoints/{id}")
    @Operation(
            operationId = "portalChangeEndpoint",
            summary = "Change an endpoint's URL, event types or limits, disable or enable it, rotate its secret")
    public EndpointView changeEndpoint(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @NotNull @Valid PortalEndpointChange change) {
        return portal.changeEndpoint(caller.tenant(), id, change);
    }

    @POST
    @Path("/endpoints/{id}/test")
    @Operation(
            operationId = "portalTestEndpoint",
            summary = "Send a relaybox.test event to this endpoint only",
            responses =
                    @ApiResponse(
                            responseCode = "202",
                            description = "the test event is in the outbox",
                            content = @Content(schema = @Schema(implementation = TestEvent.class))))
    public Response test(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return Response.accepted(new TestEvent(portal.sendTest(caller.tenant(), id)))
                .build();
    }

    @POST
    @Path("/endpoints/{id}/recover")
    @Operation(operationId = "portalRecoverEndpoint", summary = "Resend every failure of this endpoint since a time")
    public EndpointRecovery.Recovered recover(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @NotNull @Valid EndpointRecovery.RecoverRequest request) {
        return portal.recover(caller.tenant(), id, request, caller.getName());
    }

    @GET
    @Path("/endpoints/{id}/stats")
    @Operation(operationId = "portalEndpointStats", summary = "Delivered and failed attempts per hour, last 24 hours")
    public TenantDeliveries.Stats stats(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return portal.stats(caller.tenant(), id);
    }

    @GET
    @Path("/deliveries")
    @Operation(operationId = "portalListDeliveries", summary = "The message log: deliveries to the tenant's endpoints")
    public TenantDeliveries.Listing listDeliveries(
            @Parameter(hidden = true) @Auth Caller caller,
            @QueryParam("endpoint") UUID endpoint,
            @Parameter(
                            schema =
                                    @Schema(
                                            allowableValues = {
                                                "pending",
                                                "retrying",
                                                "paused",
                                                "delivered",
                                                "dead_lettered",
                                                "cancelled"
                                            }))
                    @QueryParam("status")
                    String status,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("cursor") String cursor) {
        return deliveries.list(
                caller.tenant(),
                endpoint,
                ListParams.status(DeliveryStatus.class, status),
                limit,
                ListParams.cursor(cursor));
    }

    @GET
    @Path("/deliveries/{id}")
    @Operation(operationId = "portalGetDelivery", summary = "One delivery with its payload and every attempt")
    public TenantDeliveries.Detail getDelivery(
            @Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return deliveries.detail(caller.tenant(), id);
    }

    @POST
    @Path("/deliveries/{id}/resend")
    @Operation(
            operationId = "portalResendDelivery",
            summary = "Send a delivered or dead-lettered delivery again",
            responses =
                    @ApiResponse(
                            responseCode = "202",
                            description = "the delivery is due again",
                            content = @Content(schema = @Schema(implementation = Resending.class))))
    public Response resend(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        portal.resend(caller.tenant(), id, caller.getName());
        return Response.accepted(Resending.NOW).build();
    }
}
