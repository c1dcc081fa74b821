package dev.relaybox.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.recovery.ImmediateRetry;
import dev.relaybox.store.Cursor;
import dev.relaybox.store.InboxQueries;
import dev.relaybox.store.InboxQueries.InboxFilter;
import dev.relaybox.store.Page;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxState;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
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
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** {@code /admin/inbox}: every received event, where it stands, and a way to release a deferred one now. */
@Tag(name = "admin")
@Path("/admin/inbox")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminInboxResource {
    private final InboxQueries inbox;
    private final ImmediateRetry immediateRetry;
    private final TemporalLinks links;

    public AdminInboxResource(InboxQueries inbox, ImmediateRetry immediateRetry, TemporalLinks links) {
        this.inbox = inbox;
        this.immediateRetry = immediateRetry;
        this.links = links;
    }

    public record InboxEvent(
            UUID id,
            String partner,
            String partnerEventId,
            String eventType,
            String aggregate,
            InboxState status,
            Outcome outcome,
            int attempts,
            String deferReason,
            String lastError,
            Instant receivedAt,
            Instant processedAt,
            String workflowId,
            String temporalUrl) {}

    public record InboxEventDetail(InboxEvent event, JsonNode payload) {}

    @GET
    @Operation(
            operationId = "listInbox",
            summary = "Inbound events, filtered, newest first; pass nextCursor back as " + "cursor for the next page")
    public Page<InboxEvent> list(
            @Parameter(schema = @Schema(allowableValues = {"received", "deferred", "processed", "quarantined"}))
                    @QueryParam("status")
                    String status,
            @QueryParam("eventType") String eventType,
            @QueryParam("partner") String partner,
            @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since,
            @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("cursor") String cursor) {
        InboxFilter filter = new InboxFilter(
                ListParams.status(InboxState.class, status),
                eventType,
                partner,
                ListParams.aggregate(aggregate),
                since,
                until);
        Page<InboxQueries.InboxEvent> page = inbox.list(filter, cursor(cursor), limit);
        return new Page<>(page.items().stream().map(this::event).toList(), page.nextCursor());
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getInboxEvent", summary = "One inbound event with its payload")
    public InboxEventDetail get(@PathParam("id") UUID id) {
        InboxQueries.InboxEventDetail detail = inbox.detail(id)
                .orElseThrow(() -> ApiException.notFound("inbox_event_not_found", "no inbox event with id " + id));
        return new InboxEventDetail(event(detail.event()), Json.parse(detail.payloadJson()));
    }

    /**
     * Lets a deferred event decide again now, e.g. after its precondition was fixed by hand: through its running
     * workflow or, when that is gone, a new run that decides at once (see {@link ImmediateRetry}).
     */
    @POST
    @Path("/{id}/release")
    @Operation(operationId = "releaseInboxEvent", summary = "Let a deferred inbound event decide again now")
    public Map<String, String> release(@PathParam("id") UUID id) {
        InboxEvent event = get(id).event();
        ImmediateRetry.Result result = immediateRetry.releaseInboxEvent(id);
        if (result == ImmediateRetry.Result.REFUSED) {
            throw ApiException.conflict(
                    "not_deferred",
                    "inbox event " + id + " is " + event.status() + "; only a deferred event can be released");
        }
        return Map.of(
                "status",
                result == ImmediateRetry.Result.SIGNALLED ? "released" : "restarted",
                "workflowId",
                event.workflowId());
    }

    private InboxEvent event(InboxQueries.InboxEvent e) {
        return new InboxEvent(
                e.id(),
                e.partner(),
                e.partnerEventId(),
                e.eventType(),
                e.aggregate() == null ? null : e.aggregate().toString(),
                e.status(),
                e.outcome(),
                e.attempts(),
                e.deferReason(),
                e.lastError(),
                e.receivedAt(),
                e.processedAt(),
                e.workflowId(),
                links.workflow(e.workflowId()));
    }

    private static Cursor cursor(String cursor) {
        try {
            return Cursor.decodeNullable(cursor);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_cursor", e.getMessage());
        }
    }
}
