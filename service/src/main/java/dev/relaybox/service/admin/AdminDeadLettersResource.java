package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.dropwizard.auth.Auth;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
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
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * {@code /admin/dead-letters}: what gave up, why, where it came from, and the way back: replay one or many
 * through the normal path, or discard with a reason.
 */
@Tag(name = "admin")
@Path("/admin/dead-letters")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class AdminDeadLettersResource {
    private final Jdbi jdbi;
    private final TemporalLinks links;
    private final DeadLetterReplay replay;

    public AdminDeadLettersResource(Jdbi jdbi, TemporalLinks links, Runnable wakeDispatcher) {
        this.jdbi = jdbi;
        this.links = links;
        this.replay = new DeadLetterReplay(jdbi, wakeDispatcher);
    }

    public record DeadLetter(UUID id, String source, UUID reference, String eventType, String peer, String aggregate,
            String reason, String lastError, int attempts, Instant createdAt, Instant resolvedAt, String resolvedBy,
            String resolution, String workflowId, String temporalUrl) {}

    /** Who replays: defaults to the token's role; operators may name themselves for the record. */
    public record ReplayRequest(@Size(max = 100) String by) {}

    public record BulkReplayRequest(@Valid DeadLetterFilter filter, @Size(max = 100) String by) {}

    public record DiscardRequest(@NotBlank @Size(max = 500) String reason, @Size(max = 100) String by) {}

    public record Replayed(int replayed, int skippedDisabledEndpoint) {}

    private static final String SELECT = """
            SELECT dl.*, COALESCE(o.event_type, i.event_type) AS event_type,
                   COALESCE(e.url, i.partner_name) AS peer,
                   COALESCE(o.aggregate_type || ':' || o.aggregate_id, i.aggregate_type || ':' || i.aggregate_id) AS aggregate,
                   d.outbox_id, i.partner_name, i.partner_event_id
            """ + DeadLetterFilter.FROM;

    @GET
    @Operation(operationId = "listDeadLetters", summary = "Dead letters of both directions, newest first, filtered and paged")
    public Page<DeadLetter> list(@QueryParam("open") @DefaultValue("true") boolean open,
            @QueryParam("source") String source, @QueryParam("eventType") String eventType,
            @QueryParam("peer") String peer, @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since, @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("offset") @DefaultValue("0") @Min(0) int offset) {
        DeadLetterFilter filter = new DeadLetterFilter(source, eventType, peer, aggregate, since, until);
        return jdbi.withHandle(h -> Page.of(filter.bind(h.createQuery(SELECT + DeadLetterFilter.WHERE + """
                                   AND (dl.resolved_at IS NULL) = :open
                                 ORDER BY dl.created_at DESC, dl.id
                                 LIMIT :limit OFFSET :offset"""))
                        .bind("open", open).bind("limit", limit + 1).bind("offset", offset)
                        .map(this::deadLetter)
                        .list(),
                limit, offset));
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getDeadLetter", summary = "One dead letter with its reason and Temporal link")
    public DeadLetter get(@PathParam("id") UUID id) {
        return jdbi.withHandle(h -> h.createQuery(SELECT + " WHERE dl.id = :id").bind("id", id).map(this::deadLetter)
                        .findOne())
                .orElseThrow(() -> ApiException.notFound("dead_letter_not_found", "no dead letter with id " + id));
    }

    @POST
    @Path("/{id}/replay")
    @Operation(operationId = "replayDeadLetter", summary = "Send a dead letter through the normal path again (409 if already resolved)")
    public Replayed replay(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id, @Valid ReplayRequest request) {
        DeadLetter deadLetter = get(id);
        if (deadLetter.resolvedAt() != null) {
            throw ApiException.conflict("already_resolved", "dead letter " + id + " was already "
                    + deadLetter.resolution().toLowerCase() + " by " + deadLetter.resolvedBy() + " at "
                    + deadLetter.resolvedAt());
        }
        DeadLetterReplay.Result result = replay.replay(DeadLetterFilter.none(), id, by(caller, request == null ? null : request.by()));
        if (result.skippedDisabledEndpoint() > 0) {
            throw ApiException.conflict("endpoint_disabled", "the endpoint " + deadLetter.peer()
                    + " is disabled; enable it (PATCH /admin/endpoints/{id}) before replaying");
        }
        if (result.replayed() == 0) {
            throw ApiException.conflict("already_resolved", "dead letter " + id + " is being replayed or was resolved");
        }
        return new Replayed(result.replayed(), 0);
    }

    /** Replays every open dead letter the filter matches; answers how many. */
    @POST
    @Path("/replay")
    @Operation(operationId = "replayDeadLetters", summary = "Replay every open dead letter matching a filter")
    public Replayed replayAll(@Parameter(hidden = true) @Auth Caller caller, @NotNull @Valid BulkReplayRequest request) {
        DeadLetterFilter filter = request.filter() == null ? DeadLetterFilter.none() : request.filter();
        DeadLetterReplay.Result result = replay.replay(filter, null, by(caller, request.by()));
        return new Replayed(result.replayed(), result.skippedDisabledEndpoint());
    }

    @POST
    @Path("/{id}/discard")
    @Operation(operationId = "discardDeadLetter", summary = "Give up on a dead letter, with a reason")
    public DeadLetter discard(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id, @NotNull @Valid DiscardRequest request) {
        get(id);
        if (!replay.discard(id, by(caller, request.by()), request.reason())) {
            throw ApiException.conflict("already_resolved", "dead letter " + id + " was already resolved");
        }
        return get(id);
    }

    private static String by(Caller caller, String named) {
        return named == null || named.isBlank() ? caller.getName() : named + " (" + caller.getName() + " token)";
    }

    private DeadLetter deadLetter(ResultSet rs, StatementContext ctx) throws SQLException {
        String source = rs.getString("source");
        String workflowId = source.equals("OUTBOX")
                ? (rs.getObject("outbox_id") == null ? null
                        : OutboxDeliveryWorkflow.workflowId(rs.getObject("outbox_id", UUID.class)))
                : (rs.getString("partner_name") == null ? null
                        : InboxEventWorkflow.workflowId(rs.getString("partner_name"), rs.getString("partner_event_id")));
        return new DeadLetter(rs.getObject("id", UUID.class), source, rs.getObject("reference", UUID.class),
                rs.getString("event_type"), rs.getString("peer"), rs.getString("aggregate"), rs.getString("reason"),
                rs.getString("last_error"), rs.getInt("attempts"), Rows.instant(rs, "created_at"),
                Rows.instant(rs, "resolved_at"), rs.getString("resolved_by"),
                rs.getString("resolution"), workflowId, workflowId == null ? null : links.workflow(workflowId));
    }
}
