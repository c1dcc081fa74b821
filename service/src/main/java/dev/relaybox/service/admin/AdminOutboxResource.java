package dev.relaybox.service.admin;

import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** {@code /admin/outbox}: every outbox row, whether it was dispatched and processed, and how its deliveries stand. */
@Tag(name = "admin")
@Path("/admin/outbox")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminOutboxResource {
    private final Jdbi jdbi;
    private final TemporalLinks links;

    public AdminOutboxResource(Jdbi jdbi, TemporalLinks links) {
        this.jdbi = jdbi;
        this.links = links;
    }

    /** {@code deliveries} counts them by status, e.g. {@code DELIVERED:2 RETRYING:1}. */
    public record OutboxRow(UUID id, String eventType, String aggregate, String status, Instant createdAt,
            Instant dispatchedAt, Instant processedAt, String deliveries, String temporalUrl) {}

    @GET
    @Operation(operationId = "listOutbox", summary = "Outbox events with their delivery counts, filtered and paged")
    public Page<OutboxRow> list(@QueryParam("status") String status, @QueryParam("eventType") String eventType,
            @QueryParam("aggregate") String aggregate, @QueryParam("since") Instant since,
            @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("offset") @DefaultValue("0") @Min(0) int offset) {
        return jdbi.withHandle(h -> Page.of(h.createQuery("""
                                SELECT o.id, o.event_type, o.aggregate_type || ':' || o.aggregate_id AS aggregate,
                                       o.status, o.created_at, o.dispatched_at, o.processed_at,
                                       (SELECT string_agg(d.status || ':' || d.n, ' ' ORDER BY d.status)
                                          FROM (SELECT status, count(*) AS n FROM deliveries
                                                 WHERE outbox_id = o.id GROUP BY status) d) AS deliveries
                                  FROM outbox_events o
                                 WHERE (CAST(:status AS text) IS NULL OR o.status = upper(:status))
                                   AND (CAST(:eventType AS text) IS NULL OR o.event_type = :eventType)
                                   AND (CAST(:aggregate AS text) IS NULL OR o.aggregate_type || ':' || o.aggregate_id = :aggregate)
                                   AND (CAST(:since AS timestamptz) IS NULL OR o.created_at >= :since)
                                   AND (CAST(:until AS timestamptz) IS NULL OR o.created_at < :until)
                                 ORDER BY o.created_at DESC, o.id
                                 LIMIT :limit OFFSET :offset""")
                        .bind("status", status).bind("eventType", eventType).bind("aggregate", aggregate)
                        .bind("since", since).bind("until", until).bind("limit", limit + 1).bind("offset", offset)
                        .map((rs, ctx) -> {
                            UUID id = rs.getObject("id", UUID.class);
                            return new OutboxRow(id, rs.getString("event_type"), rs.getString("aggregate"),
                                    rs.getString("status"), Rows.instant(rs, "created_at"),
                                    Rows.instant(rs, "dispatched_at"),
                                    Rows.instant(rs, "processed_at"), rs.getString("deliveries"),
                                    links.workflow(OutboxDeliveryWorkflow.workflowId(id)));
                        })
                        .list(),
                limit, offset));
    }
}
