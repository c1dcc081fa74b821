package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Pages;
import dev.relaybox.service.api.PathSegments;
import dev.relaybox.service.auth.Caller;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /admin/workflows/{workflowId}}: a workflow's history as a readable timeline, fetched from Temporal with the
 * SDK, so an operator needs no Temporal UI (embedded mode has none). The page itself carries no data and loads without
 * a token, like the admin page; its data comes from {@code .../history}, which needs the admin token.
 */
@Path("/admin/workflows")
@Tag(name = "admin")
public final class AdminWorkflowsResource {
    private static final Logger LOG = LoggerFactory.getLogger(AdminWorkflowsResource.class);
    // The SDK answers this query from every running workflow with its current details.
    private static final String METADATA_QUERY = "__temporal_workflow_metadata";

    private final WorkflowClient temporal;
    private final TemporalLinks links;
    private final byte[] page;

    public AdminWorkflowsResource(WorkflowClient temporal, TemporalLinks links) {
        this.temporal = temporal;
        this.links = links;
        this.page = Pages.file("/admin/history.html");
    }

    /** The history; {@code temporalUrl} is the Temporal UI's page for it, null when the server is embedded. */
    public record WorkflowHistory(
            String workflowId,
            String runId,
            String workflowType,
            String summary,
            String status,
            String currentDetails,
            String temporalUrl,
            List<WorkflowTimeline.Entry> timeline) {}

    @GET
    @Path("{workflowId}")
    @Produces(MediaType.TEXT_HTML)
    @Operation(
            operationId = "workflowHistoryPage",
            summary = "A workflow's history as a timeline (HTML; it asks for an admin token itself)")
    public Response page(
            @Parameter(schema = @Schema(pattern = PathSegments.WITHOUT_CONTROL_CHARACTERS)) @PathParam("workflowId")
                    String workflowId) {
        return Pages.admin(page, MediaType.TEXT_HTML);
    }

    @GET
    @Path("{workflowId}/history")
    @RolesAllowed(Caller.ADMIN)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "workflowHistory", summary = "A workflow's history from Temporal, newest first")
    public WorkflowHistory history(
            @Parameter(schema = @Schema(pattern = PathSegments.WITHOUT_CONTROL_CHARACTERS)) @PathParam("workflowId")
                    String workflowId) {
        WorkflowExecutionHistory history;
        try {
            history = temporal.fetchHistory(workflowId);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                throw ApiException.notFound(
                        "workflow_not_found",
                        "Temporal holds no workflow " + workflowId
                                + " (the embedded server keeps none across restarts; the reconciler starts unfinished ones again)");
            }
            throw e;
        }
        WorkflowTimeline.View view = WorkflowTimeline.of(history.getEvents());
        String details = view.status().equals("running") ? currentDetails(workflowId) : null;
        return new WorkflowHistory(
                workflowId,
                view.runId(),
                view.workflowType(),
                view.summary(),
                view.status(),
                details,
                links.temporalUi(workflowId),
                view.entries());
    }

    private String currentDetails(String workflowId) {
        try {
            return temporal.newUntypedWorkflowStub(workflowId)
                    .query(METADATA_QUERY, WorkflowMetadata.class)
                    .getCurrentDetails();
        } catch (RuntimeException e) {
            // The timeline still stands without them, e.g. while no worker polls the task queue.
            LOG.debug("no current details for {}: {}", workflowId, e.toString());
            return null;
        }
    }
}
