package dev.relaybox.service.admin;

import dev.relaybox.service.auth.Caller;
import dev.relaybox.store.OutboxQueries;
import dev.relaybox.store.Page;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxStatus;
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
    private final OutboxQueries outbox;
    private final TemporalLinks links;

    public AdminOutboxResource(Jdbi jdbi, TemporalLinks links) {
        this.outbox = jdbi.onDemand(OutboxQueries.class);
        this.links = links;
    }

    /** {@code deliveries} counts them by status, e.g. {@code DELIVERED:2 RETRYING:1}. */
    public record OutboxRow(
            UUID id,
            String eventType,
            String aggregate,
            String status,
            Instant createdAt,
            Instant dispatchedAt,
            Instant processedAt,
            String deliveries,
            String temporalUrl) {}

    @GET
    @Operation(operationId = "listOutbox", summary = "Outbox events with their delivery counts, filtered, newest first")
    public Page<OutboxRow> list(
            @Parameter(schema = @Schema(allowableValues = {"pending", "dispatched", "processed", "quarantined"}))
                    @QueryParam("status")
                    String status,
            @QueryParam("eventType") String eventType,
            @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since,
            @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @Parameter(description = "the nextCursor of the previous page") @QueryParam("cursor") String cursor) {
        OutboxQueries.Filter filter = new OutboxQueries.Filter(
                ListParams.status(OutboxStatus.class, status),
                ListParams.text(eventType),
                ListParams.aggregate(aggregate),
                since,
                until);
        Page<OutboxQueries.Listed> page = outbox.list(filter, ListParams.cursor(cursor), limit);
        return new Page<>(
                page.items().stream()
                        .map(o -> new OutboxRow(
                                o.id(),
                                o.eventType(),
                                o.aggregate().toString(),
                                o.status().name(),
                                o.createdAt(),
                                o.dispatchedAt(),
                                o.processedAt(),
                                o.deliveries(),
                                links.workflow(OutboxDeliveryWorkflow.workflowId(o.id()))))
                        .toList(),
                page.nextCursor());
    }
}
