package dev.relaybox.service.inbound;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/** {@code GET /entities/{type}/{id}}: the state inbound events have brought an aggregate to, and how. */
@Tag(name = "producer")
@Path("/entities/{type}/{id}")
@RolesAllowed(Caller.PRODUCER)
@Produces(MediaType.APPLICATION_JSON)
public final class EntitiesResource {
    private final Jdbi jdbi;

    public EntitiesResource(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public record AppliedEvent(String partner, String partnerEventId, String eventType, String outcome,
            Instant receivedAt, Instant processedAt) {}

    public record Entity(String type, String id, String state, int version, Instant updatedAt,
            List<AppliedEvent> events) {}

    @GET
    @Operation(operationId = "getEntity", summary = "An entity's state and the inbound events applied to it")
    public Entity get(@PathParam("type") String type, @PathParam("id") String id) {
        return jdbi.withHandle(h -> {
            Entity entity = h.createQuery("""
                            SELECT state, version, updated_at FROM entities
                             WHERE aggregate_type = :type AND aggregate_id = :id""")
                    .bind("type", type).bind("id", id)
                    .map((rs, ctx) -> new Entity(type, id, rs.getString("state"), rs.getInt("version"),
                            rs.getObject("updated_at", OffsetDateTime.class).toInstant(), List.of()))
                    .findOne()
                    .orElseThrow(() -> ApiException.notFound("entity_not_found",
                            "no " + type + " " + id + " has been created by an inbound event"));
            List<AppliedEvent> events = h.createQuery("""
                            SELECT partner_name, partner_event_id, event_type, outcome, received_at, processed_at
                              FROM webhook_inbox
                             WHERE aggregate_type = :type AND aggregate_id = :id AND status = 'PROCESSED'
                             ORDER BY processed_at, received_at""")
                    .bind("type", type).bind("id", id)
                    .map((rs, ctx) -> new AppliedEvent(rs.getString("partner_name"), rs.getString("partner_event_id"),
                            rs.getString("event_type"), rs.getString("outcome"),
                            rs.getObject("received_at", OffsetDateTime.class).toInstant(),
                            rs.getObject("processed_at", OffsetDateTime.class).toInstant()))
                    .list();
            return new Entity(entity.type(), entity.id(), entity.state(), entity.version(), entity.updatedAt(), events);
        });
    }
}
