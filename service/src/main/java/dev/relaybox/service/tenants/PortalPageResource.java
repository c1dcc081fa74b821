package dev.relaybox.service.tenants;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Pages;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * {@code /portal}: the customer portal's page and its scripts. Like the admin page it holds no data and needs no
 * token to load (no role annotation: any would make the bearer filter demand one); the link's token arrives in the
 * URL fragment, which the page moves into the tab's session storage and sends with each {@code /portal/api} call.
 *
 * <p>Every answer carries a Content-Security-Policy: scripts, styles and API calls only from Relaybox itself, so a
 * string a customer typed can never run as script even if a bug let it into the page, and {@code frame-ancestors}
 * names the SaaS pages that may embed the portal in an iframe. Images may also come from any https address: a
 * tenant's logo lives on the SaaS's own site.
 */
@Tag(name = "portal")
@Path("/portal")
public final class PortalPageResource {
    private static final String HTML = "text/html; charset=utf-8";
    private static final String SCRIPT = "text/javascript; charset=utf-8";
    private static final String CSS = "text/css; charset=utf-8";

    private final String contentSecurityPolicy;
    private final byte[] page = Pages.file("/portal/index.html");
    /** The page's files by name, with their types: the page's own scripts and style, and the shared chart. */
    private final Map<String, Asset> assets = Map.of(
            "portal.js", new Asset(Pages.file("/portal/portal.js"), SCRIPT),
            "portal-log.js", new Asset(Pages.file("/portal/portal-log.js"), SCRIPT),
            "chart.js", new Asset(Pages.file(Pages.CHART_SCRIPT), SCRIPT),
            "portal.css", new Asset(Pages.file("/portal/portal.css"), CSS));

    private record Asset(byte[] body, String type) {}

    /** A portal nobody may frame. */
    public PortalPageResource() {
        this("'none'");
    }

    /** {@code frameAncestors}: CSP source expressions as the header wants them, e.g. {@code https://app.example.com}. */
    public PortalPageResource(String frameAncestors) {
        this.contentSecurityPolicy =
                "default-src 'self'; img-src 'self' https: data:; frame-ancestors " + frameAncestors;
    }

    @GET
    @Operation(
            operationId = "portalPage",
            summary = "The customer portal (HTML; a portal link opens it with its token)")
    public Response page() {
        return served(page, HTML);
    }

    @GET
    @Path("/{file}")
    @Operation(
            operationId = "portalPageFile",
            summary = "The portal's scripts (portal.js, portal-log.js, the shared chart.js) and style (portal.css)")
    public Response file(@Parameter(schema = @Schema(pattern = "^[a-z0-9.-]+$")) @PathParam("file") String file) {
        Asset asset = assets.get(file);
        if (asset == null) {
            throw ApiException.notFound("not_found", "the portal has no file \"" + file + "\"");
        }
        return served(asset.body(), asset.type());
    }

    private Response served(byte[] body, String type) {
        return Pages.served(body, type, contentSecurityPolicy);
    }
}
