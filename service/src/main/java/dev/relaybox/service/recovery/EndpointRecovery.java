package dev.relaybox.service.recovery;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.DeadLetterFilter;
import dev.relaybox.store.EndpointStore;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * After a receiver's outage, resend what failed for one endpoint since a time, for the operator or the endpoint's
 * tenant. It is a bulk replay of the endpoint's open dead letters, so each goes through the normal path once (a
 * recovered one is no longer open), paced by the endpoint's controls, in outbox order (the dispatcher takes rows
 * oldest first).
 */
public final class EndpointRecovery {
    private final Jdbi jdbi;
    private final DeadLetterReplay replay;

    public EndpointRecovery(Jdbi jdbi, DeadLetterReplay replay) {
        this.jdbi = jdbi;
        this.replay = replay;
    }

    /**
     * {@code since}: an ISO-8601 instant, not in the future; {@code limit} at most
     * {@value DeadLetterReplay#MAX_BATCH}.
     */
    public record RecoverRequest(
            @Schema(example = "2026-01-31T08:00:00Z", requiredMode = Schema.RequiredMode.REQUIRED, format = "date-time")
            String since,

            @Size(max = 100) String by,
            @Min(1) @Max(DeadLetterReplay.MAX_BATCH) Integer limit) {}

    /**
     * {@code remaining}: failures in the window still to recover; call again to take the next batch.
     * {@code skippedDisabledEndpoint}: left as they are because the endpoint is disabled.
     */
    public record Recovered(int recovered, int skippedDisabledEndpoint, int remaining) {}

    /** Recovers the endpoint's failures when it is {@code tenant}'s (or when {@code tenant} is null). */
    public Recovered recover(UUID id, RecoverRequest request, String by, String tenant) {
        Instant since = since(request);
        jdbi.withExtension(EndpointStore.class, store -> store.find(id))
                .filter(e -> tenant == null || tenant.equals(e.tenant()))
                .orElseThrow(() -> ApiException.notFound("endpoint_not_found", "no endpoint with id " + id));
        int limit = request.limit() == null ? DeadLetterReplay.MAX_BATCH : request.limit();
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
