package dev.relaybox.service.tenants;

import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.outbound.Endpoints;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;

/** {@code /admin/endpoints/{id}/stats}: the admin page's chart of an endpoint, the same as the portal's. */
@Tag(name = "endpoints")
@Path("/admin/endpoints/{id}/stats")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class EndpointStatsResource {
    private final Endpoints endpoints;
    private final TenantDeliveries deliveries;

    public EndpointStatsResource(Endpoints endpoints, TenantDeliveries deliveries) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
    }

    @GET
    @Operation(operationId = "endpointStats", summary = "Delivered and failed attempts per hour, last 24 hours")
    public TenantDeliveries.Stats stats(@PathParam("id") UUID id) {
        endpoints.find(id, null);
        return deliveries.stats(id);
    }
}
