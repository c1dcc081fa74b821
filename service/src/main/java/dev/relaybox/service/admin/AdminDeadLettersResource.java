package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.api.PathSegments;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.service.recovery.PayloadCorrection;
import dev.relaybox.service.recovery.ReplayRequest;
import dev.relaybox.store.Cursor;
import dev.relaybox.store.DeadLetterFilter;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.Page;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.dropwizard.auth.Auth;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
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
import java.time.Instant;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

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
    private final DeadLetterStore store;
    private final TemporalLinks links;
    private final DeadLetterReplay replay;

    public AdminDeadLettersResource(Jdbi jdbi, TemporalLinks links, DeadLetterReplay replay) {
        this.store = jdbi.onDemand(DeadLetterStore.class);
        this.links = links;
        this.replay = replay;
    }

    public record DeadLetter(
            UUID id,
            String source,
            UUID reference,
            String eventType,
            String peer,
            String tenant,
            String aggregate,
            String reason,
            String lastError,
            int attempts,
            Instant createdAt,
            Instant resolvedAt,
            String resolvedBy,
            String resolution,
            String workflowId,
            String temporalUrl) {}

    /**
     * A bulk replay takes at most {@code limit} (default and most {@value DeadLetterReplay#MAX_BATCH}) of the oldest
     * matching dead letters; an empty filter replays nothing unless {@code all} is true, so a forgotten filter cannot
     * replay everything.
     */
    public record BulkReplayRequest(
            @Valid DeadLetterFilter filter,
            @Size(max = 100) String by,
            boolean all,
            @Min(1) @Max(DeadLetterReplay.MAX_BATCH) Integer limit) {}

    public record DiscardRequest(
            @NotBlank @Size(min = 1, max = 500) String reason,

            @Size(max = 100) String by) {}

    /** {@code remaining}: open dead letters the filter still matches; replay again to take the next batch. */
    public record Replayed(int replayed, int skippedDisabledEndpoint, int remaining) {}

    public record OpenCount(int open) {}

    static final String FIX_EXAMPLE = """
            {"payload": {"orderId": 42, "currency": "EUR"}, "reason": "currency was missing", "by": "alice"}""";

    @GET
    @Operation(
            operationId = "listDeadLetters",
            summary = "Dead letters of both directions, newest first, filtered and paged")
    public Page<DeadLetter> list(
            @QueryParam("open") @DefaultValue("true") boolean open,
            @Parameter(schema = @Schema(allowableValues = {"outbox", "inbox"})) @QueryParam("source") String source,
            @QueryParam("eventType") String eventType,
            @QueryParam("peer") String peer,
            @Parameter(description = "the dead letters of this tenant's endpoints") @QueryParam("tenant") String tenant,
            @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since,
            @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @Parameter(description = "the nextCursor of the previous page") @QueryParam("cursor") String cursor) {
        DeadLetterFilter filter =
                checked(new DeadLetterFilter(source, eventType, peer, aggregate, since, until, null, tenant));
        Cursor after = cursor(cursor);
        Page<DeadLetterStore.Row> page = store.list(filter, open, after, limit);
        return new Page<>(page.items().stream().map(this::view).toList(), page.nextCursor());
    }

    @GET
    @Path("/" + PathSegments.ID)
    @Operation(operationId = "getDeadLetter", summary = "One dead letter with its reason and Temporal link")
    public DeadLetter get(@PathParam("id") UUID id) {
        return store.find(id)
                .map(this::view)
                .orElseThrow(() -> ApiException.notFound("dead_letter_not_found", "no dead letter with id " + id));
    }

    @POST
    @Path("/" + PathSegments.ID + "/replay")
    @Operation(
            operationId = "replayDeadLetter",
            summary = "Send a dead letter through the normal path again, as it is or with a corrected payload",
            description = "With \"payload\" and \"reason\", the inbox row's or outbox event's payload is replaced"
                    + " for the replay, in its transaction; the original and an audit entry (token, by, reason,"
                    + " changes) are kept and shown in GET /admin/story. An inbound edit is not signature-checked"
                    + " again. 409 if already resolved or the event still has deliveries being attempted.",
            requestBody =
                    @RequestBody(
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = ReplayRequest.class),
                                            examples = {
                                                @ExampleObject(name = "as it is", value = "{\"by\": \"alice\"}"),
                                                @ExampleObject(name = "fix, then replay", value = FIX_EXAMPLE)
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = "replayed: the normal path takes it again",
                        content = @Content(schema = @Schema(implementation = Replayed.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "404", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "413", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Replayed replay(
            @Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id, @Valid ReplayRequest request) {
        PayloadCorrection correction = request == null ? null : request.correction(caller.getName());
        DeadLetter deadLetter = get(id);
        if (deadLetter.resolvedAt() != null) {
            throw ApiException.conflict(
                    "already_resolved",
                    "dead letter " + id + " was already "
                            + deadLetter.resolution().toLowerCase() + " by " + deadLetter.resolvedBy() + " at "
                            + deadLetter.resolvedAt());
        }
        String by = caller.naming(request == null ? null : request.by());
        DeadLetterReplay.Result result = correction == null
                ? replay.replay(DeadLetterFilter.none(), id, 1, by)
                : replay.replayCorrected(id, by, correction);
        if (result.skippedDisabledEndpoint() > 0) {
            throw ApiException.conflict(
                    "endpoint_disabled",
                    "the endpoint " + deadLetter.peer()
                            + " is disabled; enable it (PATCH /admin/endpoints/{id}) before replaying");
        }
        if (result.replayed() == 0) {
            throw ApiException.conflict("already_resolved", "dead letter " + id + " is being replayed or was resolved");
        }
        return new Replayed(result.replayed(), 0, 0);
    }

    /** Replays every open dead letter the filter matches; answers how many. */
    @POST
    @Path("/replay")
    @Operation(operationId = "replayDeadLetters", summary = "Replay every open dead letter matching a filter")
    public Replayed replayAll(
            @Parameter(hidden = true) @Auth Caller caller, @NotNull @Valid BulkReplayRequest request) {
        DeadLetterFilter filter = request.filter() == null ? DeadLetterFilter.none() : checked(request.filter());
        if (filter.matchesEverything() && !request.all()) {
            throw new ApiException(
                    422,
                    "filter_required",
                    "give a filter, or \"all\": true to replay every open dead letter (in batches of at most "
                            + DeadLetterReplay.MAX_BATCH + ")");
        }
        int limit = request.limit() == null ? DeadLetterReplay.MAX_BATCH : request.limit();
        DeadLetterReplay.Result result = replay.replay(filter, null, limit, caller.naming(request.by()));
        return new Replayed(result.replayed(), result.skippedDisabledEndpoint(), result.remaining());
    }

    /** How many open dead letters a filter matches: what a bulk replay would take, for a confirmation. */
    @GET
    @Path("/count")
    @Operation(operationId = "countOpenDeadLetters", summary = "How many open dead letters match a filter")
    public OpenCount count(
            @Parameter(schema = @Schema(allowableValues = {"outbox", "inbox"})) @QueryParam("source") String source,
            @QueryParam("eventType") String eventType,
            @QueryParam("peer") String peer,
            @Parameter(description = "the dead letters of this tenant's endpoints") @QueryParam("tenant") String tenant,
            @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since,
            @QueryParam("until") Instant until) {
        DeadLetterFilter filter =
                checked(new DeadLetterFilter(source, eventType, peer, aggregate, since, until, null, tenant));
        return new OpenCount(store.countOpen(filter));
    }

    @POST
    @Path("/" + PathSegments.ID + "/discard")
    @Operation(operationId = "discardDeadLetter", summary = "Give up on a dead letter, with a reason")
    public DeadLetter discard(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @NotNull @Valid DiscardRequest request) {
        get(id);
        if (!replay.discard(id, caller.naming(request.by()), request.reason())) {
            throw ApiException.conflict("already_resolved", "dead letter " + id + " was already resolved");
        }
        return get(id);
    }

    private static DeadLetterFilter checked(DeadLetterFilter filter) {
        try {
            return filter.check();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_filter", e.getMessage());
        }
    }

    private static Cursor cursor(String token) {
        try {
            return Cursor.decodeNullable(token);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_cursor", e.getMessage());
        }
    }

    private DeadLetter view(DeadLetterStore.Row row) {
        String workflowId = row.source() == DeadLetterSource.OUTBOX
                ? (row.outboxId() == null ? null : OutboxDeliveryWorkflow.workflowId(row.outboxId()))
                : (row.partnerName() == null
                        ? null
                        : InboxEventWorkflow.workflowIdOf(
                                row.inboxWorkflowId(), row.partnerName(), row.partnerEventId()));
        return new DeadLetter(
                row.id(),
                row.source().name(),
                row.reference(),
                row.eventType(),
                row.peer(),
                row.tenant(),
                row.aggregate() == null ? null : row.aggregate().toString(),
                row.reason(),
                row.lastError(),
                row.attempts(),
                row.createdAt(),
                row.resolvedAt(),
                row.resolvedBy(),
                row.resolution(),
                workflowId,
                workflowId == null ? null : links.workflow(workflowId));
    }
}
