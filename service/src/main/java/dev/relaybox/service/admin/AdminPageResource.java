package dev.relaybox.service.admin;

import dev.relaybox.service.api.Pages;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /admin/}: one static page over the admin API, and the scripts it loads (the page's own, correcting a
 * payload before a replay, and the history page's), each served as {@link Pages} serves pages. It holds no data itself; the operator's token stays in the browser tab and goes with each API call, so
 * the page loads without one (no role annotation here: any would make the bearer filter demand a token).
 */
@Tag(name = "admin")
@Path("/admin")
public final class AdminPageResource {
    /** One chart for both pages: the admin page's endpoints and the portal's. */
    private static final String JAVASCRIPT = "text/javascript";

    private final byte[] page = Pages.file("/admin/index.html");
    private final byte[] pageScript = Pages.file("/admin/admin.js");
    private final byte[] payloadEditScript = Pages.file("/admin/payload-edit.js");
    private final byte[] chartScript = Pages.file(Pages.CHART_SCRIPT);
    private final byte[] historyScript = Pages.file("/admin/history.js");

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "adminPage", summary = "The admin page (HTML; it asks for an admin token itself)")
    public Response page() {
        return Pages.admin(page, MediaType.TEXT_HTML);
    }

    @GET
    @Path("/admin.js")
    @Produces(JAVASCRIPT)
    @Operation(operationId = "adminPageScript", summary = "The admin page's script")
    public Response pageScript() {
        return Pages.admin(pageScript, JAVASCRIPT);
    }

    @GET
    @Path("/payload-edit.js")
    @Produces(JAVASCRIPT)
    @Operation(
            operationId = "adminPagePayloadEdit",
            summary = "The admin page's script to fix a dead letter's payload, replay it, and show the edits")
    public Response payloadEditScript() {
        return Pages.admin(payloadEditScript, JAVASCRIPT);
    }

    @GET
    @Path("/chart.js")
    @Produces(JAVASCRIPT)
    @Operation(operationId = "adminPageChart", summary = "The chart of an endpoint's last 24 hours, as in the portal")
    public Response chartScript() {
        return Pages.admin(chartScript, JAVASCRIPT);
    }

    @GET
    @Path("/history.js")
    @Produces(JAVASCRIPT)
    @Operation(operationId = "adminHistoryScript", summary = "The script of a workflow's history page")
    public Response historyScript() {
        return Pages.admin(historyScript, JAVASCRIPT);
    }

    /** A page or script of the admin pages, with their {@link Pages#ADMIN_POLICY}. */
}
