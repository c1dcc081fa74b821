package dev.relaybox.service.tenants;

import dev.relaybox.service.admin.AdminPageResource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The customer portal's page and its files. They hold no data and need no token (the page reads its link's token
 * from the URL fragment and sends it with each API call). Every answer carries a Content-Security-Policy: only
 * Relaybox's own scripts and styles run, and only the configured pages may frame it.
 */
@Tag(name = "portal")
@Path("/portal")
public final class PortalPageResource {
    private final String policy;
    private final byte[] page = AdminPageResource.resource("/portal/index.html");
    private final byte[] script = AdminPageResource.resource("/portal/portal.js");
    private final byte[] style = AdminPageResource.resource("/portal/portal.css");
    private final byte[] chart = AdminPageResource.resource("/shared/chart.js");

    /** {@code frameAncestors}: the CSP source list of the pages that may frame the portal. */
    public PortalPageResource(String frameAncestors) {
        this.policy = "default-src 'self'; img-src 'self' https:; frame-ancestors " + frameAncestors;
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "portalPage", summary = "The customer portal (HTML; open it with a portal link)")
    public Response page() {
        return answer(page);
    }

    @GET
    @Path("/portal.js")
    @Produces("text/javascript")
    @Operation(operationId = "portalScript", summary = "The portal's script")
    public Response script() {
        return answer(script);
    }

    @GET
    @Path("/chart.js")
    @Produces("text/javascript")
    @Operation(operationId = "portalChart", summary = "The portal's chart of an endpoint's last 24 hours")
    public Response chart() {
        return answer(chart);
    }

    @GET
    @Path("/portal.css")
    @Produces("text/css")
    @Operation(operationId = "portalStyle", summary = "The portal's style sheet")
    public Response style() {
        return answer(style);
    }

    private Response answer(byte[] body) {
        return Response.ok(body)
                .header("Content-Security-Policy", policy)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .build();
    }
}
