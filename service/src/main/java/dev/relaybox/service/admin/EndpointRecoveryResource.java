package dev.relaybox.service.admin;

import dev.relaybox.activities.store.DeadLetterFilter;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
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
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code POST /admin/endpoints/{id}/recover}: after a receiver's outage, resend what failed for it since a time. It is
 * a bulk replay of the endpoint's open dead letters, so each goes through the normal path once (a recovered one is
 * no longer open), paced by the endpoint's controls, in outbox order (the dispatcher takes rows oldest first).
 */
@Tag(name = "endpoints")
@Path("/admin/endpoints/{id}/recover")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class EndpointRecoveryResource {
    private final Jdbi jdbi;
    private final DeadLetterReplay replay;

    public EndpointRecoveryResource(Jdbi jdbi, Runnable wakeDispatcher, DeadLetterEdits edits) {
        this.jdbi = jdbi;
        this.replay = new DeadLetterReplay(jdbi, wakeDispatcher, edits);
    }

    /** {@code since}: an ISO-8601 instant, not in the future; {@code limit} at most {@value AdminDeadLettersResource#MAX_BATCH}. */
    public record RecoverRequest(
            @Schema(example = "2026-01-31T08:00:00Z", requiredMode = Schema.RequiredMode.REQUIRED, format = "date-time")
            String since,

            @Size(max = 100) String by,
            @Min(1) @Max(AdminDeadLettersResource.MAX_BATCH) Integer limit) {}

    /**
     * {@code remaining}: failures in the window still to recover; call again to take the next batch.
     * {@code skippedDisabledEndpoint}: left as they are because the endpoint is disabled.
     */
    public record Recovered(int recovered, int skippedDisabledEndpoint, int remaining) {}

    @POST
    @Operation(
            operationId = "recoverEndpoint",
            summary = "Resend, once each, every delivery to this endpoint dead-lettered since a time",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = RecoverRequest.class),
                                            examples =
                                                    @ExampleObject(
                                                            name = "after an outage",
                                                            value = "{\"since\": \"2026-01-31T08:00:00Z\"}"))),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = "recovered: the normal path takes them again",
                        content = @Content(schema = @Schema(implementation = Recovered.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "404", ref = OpenApiDocument.ERROR_REF)
            })
    public Recovered recover(
            @Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id, @Valid RecoverRequest request) {
        return recover(id, request, AdminDeadLettersResource.by(caller, request == null ? null : request.by()), null);
    }

    /** Recovers the endpoint's failures when it is {@code tenant}'s (or when {@code tenant} is null). */
    public Recovered recover(UUID id, RecoverRequest request, String by, String tenant) {
        Instant since = since(request);
        jdbi.withExtension(EndpointStore.class, store -> store.find(id))
                .filter(e -> tenant == null || tenant.equals(e.tenant()))
                .orElseThrow(() -> ApiException.notFound("endpoint_not_found", "no endpoint with id " + id));
        int limit = request.limit() == null ? AdminDeadLettersResource.MAX_BATCH : request.limit();
        DeadLetterReplay.Result result = replay.replay(DeadLetterFilter.ofEndpoint(id, since), null, limit, by);
        return new Recovered(result.replayed(), result.skippedDisabledEndpoint(), result.remaining());
    }

    private static Instant since(RecoverRequest request) {
        if (request == null || request.since() == null || request.since().isBlank()) {
            throw ApiException.badRequest(
                    "invalid_since", "give \"since\": an ISO-8601 instant such as " + "2026-01-31T08:00:00Z");
        }
        Instant since;
        try {
            since = Instant.parse(request.since());
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest(
                    "invalid_since",
                    "\"since\" must be an ISO-8601 instant such as 2026-01-31T08:00:00Z, not \"" + request.since()
                            + "\"");
        }
        if (since.isAfter(Instant.now())) {
            throw ApiException.badRequest("invalid_since", "\"since\" is in the future: nothing can have failed yet");
        }
        return since;
    }
}
