package dev.relaybox.service.inbound;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.PathSegments;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.outbound.OutboxResource;
import dev.relaybox.store.Cursor;
import dev.relaybox.store.InboxQueries;
import dev.relaybox.store.InboxQueries.EntityHistory;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;

/** {@code GET /entities/{type}/{id}}: the state inbound events have brought an aggregate to, and how. */
@Tag(name = "producer")
@Path("/entities/{type}/{id}")
@RolesAllowed(Caller.PRODUCER)
@Produces(MediaType.APPLICATION_JSON)
public final class EntitiesResource {
    private final InboxQueries inbox;

    public EntitiesResource(InboxQueries inbox) {
        this.inbox = inbox;
    }

    public record AppliedEvent(
            String partner,
            String partnerEventId,
            String eventType,
            Outcome outcome,
            Instant receivedAt,
            Instant processedAt) {}

    /** {@code events} is one page, in the order they finished; {@code nextCursor} fetches the next, null on the last. */
    public record Entity(
            String type,
            String id,
            String state,
            int version,
            Instant updatedAt,
            List<AppliedEvent> events,
            String nextCursor) {}

    @GET
    @Operation(operationId = "getEntity", summary = "An entity's state and the inbound events applied to it")
    public Entity get(
            @Parameter(schema = @Schema(pattern = "^" + OutboxResource.AGGREGATE_TYPE + "$")) @PathParam("type")
                    String type,
            @Parameter(schema = @Schema(pattern = PathSegments.WITHOUT_CONTROL_CHARACTERS)) @PathParam("id") String id,
            @QueryParam("limit") @DefaultValue("100") @Min(1) @Max(500) int limit,
            @Parameter(description = "the nextCursor of the previous page") @QueryParam("cursor") String cursor) {
        EntityHistory entity = inbox.entityHistory(new AggregateKey(type, id), cursor(cursor), limit)
                .orElseThrow(() -> ApiException.notFound(
                        "entity_not_found", "no " + type + " " + id + " has been created by an inbound event"));
        return new Entity(
                type,
                id,
                entity.state(),
                entity.version(),
                entity.updatedAt(),
                entity.events().stream()
                        .map(e -> new AppliedEvent(
                                e.partner(),
                                e.partnerEventId(),
                                e.eventType(),
                                e.outcome(),
                                e.receivedAt(),
                                e.processedAt()))
                        .toList(),
                entity.nextCursor());
    }

    private static Cursor cursor(String cursor) {
        try {
            return Cursor.decodeNullable(cursor);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_cursor", e.getMessage());
        }
    }
}
