package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
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
import com.fasterxml.jackson.databind.JsonNode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;

/** {@code /admin/deliveries}: every delivery of every outbox row, its attempts, and a way to skip its wait. */
@Path("/admin/deliveries")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminDeliveriesResource {
    private final Jdbi jdbi;
    private final WorkflowClient temporal;
    private final TemporalLinks links;

    public AdminDeliveriesResource(Jdbi jdbi, WorkflowClient temporal, TemporalLinks links) {
        this.jdbi = jdbi;
        this.temporal = temporal;
        this.links = links;
    }

    public record Delivery(UUID id, UUID outboxId, String eventType, String aggregate, String endpoint, String url,
            String status, int attempts, Instant nextAttemptAt, Integer lastStatus, String lastError,
            Instant createdAt, Instant completedAt, String workflowId, String temporalUrl) {}

    public record Attempt(int attempt, Instant startedAt, Integer statusCode, int latencyMs, String responseExcerpt,
            String error) {}

    public record DeliveryDetail(Delivery delivery, JsonNode payload, List<Attempt> attempts) {}

    private static final String SELECT = """
            SELECT d.id, d.outbox_id, o.event_type, o.aggregate_type || ':' || o.aggregate_id AS aggregate,
                   e.name AS endpoint, e.url, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
                   d.created_at, d.completed_at
              FROM deliveries d
              JOIN outbox_events o ON o.id = d.outbox_id
              JOIN endpoints e ON e.id = d.endpoint_id
            """;

    @GET
    public Page<Delivery> list(@QueryParam("status") String status, @QueryParam("eventType") String eventType,
            @QueryParam("endpoint") String endpoint, @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since, @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("offset") @DefaultValue("0") @Min(0) int offset) {
        return jdbi.withHandle(h -> {
            var query = h.createQuery(SELECT + """
                             WHERE (CAST(:status AS text) IS NULL OR d.status = upper(:status))
                               AND (CAST(:eventType AS text) IS NULL OR o.event_type = :eventType)
                               AND (CAST(:endpoint AS text) IS NULL OR e.name = :endpoint OR e.url = :endpoint)
                               AND (CAST(:aggregate AS text) IS NULL OR o.aggregate_type || ':' || o.aggregate_id = :aggregate)
                               AND (CAST(:since AS timestamptz) IS NULL OR d.created_at >= :since)
                               AND (CAST(:until AS timestamptz) IS NULL OR d.created_at < :until)
                             ORDER BY d.created_at DESC, d.id
                             LIMIT :limit OFFSET :offset""")
                    .bind("status", status).bind("eventType", eventType).bind("endpoint", endpoint)
                    .bind("aggregate", aggregate).bind("since", since).bind("until", until)
                    .bind("limit", limit + 1).bind("offset", offset);
            List<Delivery> rows = query.map(this::delivery).list();
            return Page.of(rows, limit, offset);
        });
    }

    @GET
    @Path("/{id}")
    public DeliveryDetail get(@PathParam("id") UUID id) {
        Delivery delivery = jdbi.withHandle(h -> h.createQuery(SELECT + " WHERE d.id = :id").bind("id", id)
                        .map(this::delivery).findOne())
                .orElseThrow(() -> ApiException.notFound("delivery_not_found", "no delivery with id " + id));
        return jdbi.withHandle(h -> {
            List<Attempt> attempts = h.createQuery("""
                            SELECT attempt, started_at, status_code, latency_ms, response_excerpt, error
                              FROM delivery_attempts WHERE delivery_id = :id ORDER BY id""")
                    .bind("id", id)
                    .map((rs, ctx) -> new Attempt(rs.getInt("attempt"), Rows.instant(rs, "started_at"),
                            (Integer) rs.getObject("status_code"), rs.getInt("latency_ms"),
                            rs.getString("response_excerpt"), rs.getString("error")))
                    .list();
            String payload = h.createQuery("SELECT payload::text FROM outbox_events WHERE id = :id")
                    .bind("id", delivery.outboxId()).mapTo(String.class).one();
            return new DeliveryDetail(delivery, Json.parse(payload), attempts);
        });
    }

    /** Skips the wait of a delivery that is backing off: its next attempt starts now. */
    @POST
    @Path("/{id}/retry-now")
    public Map<String, String> retryNow(@PathParam("id") UUID id) {
        Delivery delivery = get(id).delivery();
        if (!delivery.status().equals("RETRYING") && !delivery.status().equals("PENDING")) {
            throw ApiException.conflict("not_retrying", "delivery " + id + " is " + delivery.status()
                    + "; only a pending or retrying delivery can be retried now (replay a dead letter instead)");
        }
        try {
            temporal.newWorkflowStub(OutboxDeliveryWorkflow.class, OutboxDeliveryWorkflow.workflowId(delivery.outboxId()))
                    .retryNow();
        } catch (WorkflowNotFoundException e) {
            throw ApiException.conflict("workflow_not_running",
                    "the delivery workflow is not running; the reconciler will restart it");
        }
        return Map.of("status", "signalled", "workflowId", OutboxDeliveryWorkflow.workflowId(delivery.outboxId()));
    }

    private Delivery delivery(ResultSet rs, StatementContext ctx) throws SQLException {
        UUID outboxId = rs.getObject("outbox_id", UUID.class);
        return new Delivery(rs.getObject("id", UUID.class), outboxId, rs.getString("event_type"),
                rs.getString("aggregate"), rs.getString("endpoint"), rs.getString("url"), rs.getString("status"),
                rs.getInt("attempts"), Rows.instant(rs, "next_attempt_at"), (Integer) rs.getObject("last_status"),
                rs.getString("last_error"), Rows.instant(rs, "created_at"), Rows.instant(rs, "completed_at"),
                OutboxDeliveryWorkflow.workflowId(outboxId), links.workflow(OutboxDeliveryWorkflow.workflowId(outboxId)));
    }
}
