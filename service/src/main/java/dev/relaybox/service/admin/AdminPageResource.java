package dev.relaybox.service.admin;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code /admin/}: one static page over the admin API, and the scripts it loads (the page's own, and correcting a
 * payload before a replay). It holds no data itself; the operator's token stays in the browser tab and goes with each API call, so
 * the page loads without one (no role annotation here: any would make the bearer filter demand a token).
 */
@Tag(name = "admin")
@Path("/admin")
public final class AdminPageResource {
    /** One chart for both pages: the admin page's endpoints and the portal's. */
    public static final String CHART_SCRIPT = "/shared/chart.js";

    private final byte[] page = resource("/admin/index.html");
    private final byte[] pageScript = resource("/admin/admin.js");
    private final byte[] payloadEditScript = resource("/admin/payload-edit.js");
    private final byte[] chartScript = resource(CHART_SCRIPT);

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "adminPage", summary = "The admin page (HTML; it asks for an admin token itself)")
    public byte[] page() {
        return page;
    }

    @GET
    @Path("/admin.js")
    @Produces("text/javascript")
    @Operation(operationId = "adminPageScript", summary = "The admin page's script")
    public byte[] pageScript() {
        return pageScript;
    }

    @GET
    @Path("/payload-edit.js")
    @Produces("text/javascript")
    @Operation(
            operationId = "adminPagePayloadEdit",
            summary = "The admin page's script to fix a dead letter's payload, replay it, and show the edits")
    public byte[] payloadEditScript() {
        return payloadEditScript;
    }

    @GET
    @Path("/chart.js")
    @Produces("text/javascript")
    @Operation(operationId = "adminPageChart", summary = "The chart of an endpoint's last 24 hours, as in the portal")
    public byte[] chartScript() {
        return chartScript;
    }

    public static byte[] resource(String name) {
        try (InputStream in = AdminPageResource.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
