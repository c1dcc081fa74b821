package dev.relaybox.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;

/** {@code /admin/inbox}: every received event, where it stands, and a way to release a deferred one now. */
@Tag(name = "admin")
@Path("/admin/inbox")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminInboxResource {
    private final Jdbi jdbi;
    private final WorkflowClient temporal;
    private final TemporalLinks links;

    public AdminInboxResource(Jdbi jdbi, WorkflowClient temporal, TemporalLinks links) {
        this.jdbi = jdbi;
        this.temporal = temporal;
        this.links = links;
    }

    public record InboxEvent(UUID id, String partner, String partnerEventId, String eventType, String aggregate,
            String status, String outcome, int attempts, String deferReason, String lastError, Instant receivedAt,
            Instant processedAt, String workflowId, String temporalUrl) {}

    public record InboxEventDetail(InboxEvent event, JsonNode payload) {}

    private static final String SELECT = """
            SELECT id, partner_name, partner_event_id, event_type, aggregate_type, aggregate_id, status, outcome,
                   attempts, defer_reason, last_error, received_at, processed_at
              FROM webhook_inbox
            """;

    @GET
    @Operation(operationId = "listInbox", summary = "Inbound events, filtered and paged")
    public Page<InboxEvent> list(@QueryParam("status") String status, @QueryParam("eventType") String eventType,
            @QueryParam("partner") String partner, @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since, @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("offset") @DefaultValue("0") @Min(0) int offset) {
        return jdbi.withHandle(h -> Page.of(h.createQuery(SELECT + """
                                 WHERE (CAST(:status AS text) IS NULL OR status = upper(:status))
                                   AND (CAST(:eventType AS text) IS NULL OR event_type = :eventType)
                                   AND (CAST(:partner AS text) IS NULL OR partner_name = :partner)
                                   AND (CAST(:aggregate AS text) IS NULL OR aggregate_type || ':' || aggregate_id = :aggregate)
                                   AND (CAST(:since AS timestamptz) IS NULL OR received_at >= :since)
                                   AND (CAST(:until AS timestamptz) IS NULL OR received_at < :until)
                                 ORDER BY received_at DESC, id
                                 LIMIT :limit OFFSET :offset""")
                        .bind("status", status).bind("eventType", eventType).bind("partner", partner)
                        .bind("aggregate", aggregate).bind("since", since).bind("until", until)
                        .bind("limit", limit + 1).bind("offset", offset)
                        .map(this::event)
                        .list(),
                limit, offset));
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getInboxEvent", summary = "One inbound event with its payload")
    public InboxEventDetail get(@PathParam("id") UUID id) {
        return jdbi.withHandle(h -> {
            InboxEvent event = h.createQuery(SELECT + " WHERE id = :id").bind("id", id).map(this::event).findOne()
                    .orElseThrow(() -> ApiException.notFound("inbox_event_not_found", "no inbox event with id " + id));
            String payload = h.createQuery("SELECT payload::text FROM webhook_inbox WHERE id = :id")
                    .bind("id", id).mapTo(String.class).one();
            return new InboxEventDetail(event, Json.parse(payload));
        });
    }

    /** Signals a deferred event to decide again now, e.g. after its precondition was fixed by hand. */
    @POST
    @Path("/{id}/release")
    @Operation(operationId = "releaseInboxEvent", summary = "Let a deferred inbound event decide again now")
    public Map<String, String> release(@PathParam("id") UUID id) {
        InboxEvent event = get(id).event();
        if (!event.status().equals("DEFERRED")) {
            throw ApiException.conflict("not_deferred", "inbox event " + id + " is " + event.status()
                    + "; only a deferred event can be released");
        }
        try {
            temporal.newWorkflowStub(InboxEventWorkflow.class, event.workflowId()).release();
        } catch (WorkflowNotFoundException e) {
            throw ApiException.conflict("workflow_not_running",
                    "the event's workflow is not running; the reconciler will restart it");
        }
        return Map.of("status", "released", "workflowId", event.workflowId());
    }

    private InboxEvent event(ResultSet rs, StatementContext ctx) throws SQLException {
        String workflowId = InboxEventWorkflow.workflowId(rs.getString("partner_name"), rs.getString("partner_event_id"));
        String aggregateId = rs.getString("aggregate_id");
        return new InboxEvent(rs.getObject("id", UUID.class), rs.getString("partner_name"),
                rs.getString("partner_event_id"), rs.getString("event_type"),
                aggregateId == null ? null : rs.getString("aggregate_type") + ":" + aggregateId,
                rs.getString("status"), rs.getString("outcome"), rs.getInt("attempts"), rs.getString("defer_reason"),
                rs.getString("last_error"), Rows.instant(rs, "received_at"),
                Rows.instant(rs, "processed_at"), workflowId, links.workflow(workflowId));
    }
}
