package dev.relaybox.service.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.recovery.ImmediateRetry;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.Page;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** {@code /admin/deliveries}: every delivery of every outbox row, its attempts, and a way to skip its wait. */
@Tag(name = "admin")
@Path("/admin/deliveries")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public final class AdminDeliveriesResource {
    private final DeliveryStore deliveries;
    private final OutboxStore outbox;
    private final ImmediateRetry immediateRetry;
    private final TemporalLinks links;

    public AdminDeliveriesResource(Jdbi jdbi, ImmediateRetry immediateRetry, TemporalLinks links) {
        this.deliveries = jdbi.onDemand(DeliveryStore.class);
        this.outbox = jdbi.onDemand(OutboxStore.class);
        this.immediateRetry = immediateRetry;
        this.links = links;
    }

    public record Delivery(
            UUID id,
            UUID outboxId,
            String eventType,
            String aggregate,
            String endpoint,
            String url,
            String status,
            int attempts,
            Instant nextAttemptAt,
            Integer lastStatus,
            String lastError,
            Instant createdAt,
            Instant completedAt,
            String workflowId,
            String temporalUrl) {}

    public record DeliveryDetail(Delivery delivery, JsonNode payload, List<DeliveryStore.Attempt> attempts) {}

    @GET
    @Operation(
            operationId = "listDeliveries",
            summary = "Deliveries (one per outbox event and endpoint), filtered, newest first")
    public Page<Delivery> list(
            @Parameter(
                            schema =
                                    @Schema(
                                            allowableValues = {
                                                "pending",
                                                "retrying",
                                                "paused",
                                                "delivered",
                                                "dead_lettered",
                                                "cancelled"
                                            }))
                    @QueryParam("status")
                    String status,
            @QueryParam("eventType") String eventType,
            @QueryParam("endpoint") String endpoint,
            @QueryParam("aggregate") String aggregate,
            @QueryParam("since") Instant since,
            @QueryParam("until") Instant until,
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @Parameter(description = "the nextCursor of the previous page") @QueryParam("cursor") String cursor) {
        DeliveryStore.Filter filter = new DeliveryStore.Filter(
                ListParams.status(DeliveryStatus.class, status),
                ListParams.text(eventType),
                ListParams.text(endpoint),
                ListParams.aggregate(aggregate),
                since,
                until,
                null,
                null);
        Page<DeliveryStore.Listed> page = deliveries.list(filter, ListParams.cursor(cursor), limit);
        return new Page<>(page.items().stream().map(this::delivery).toList(), page.nextCursor());
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getDelivery", summary = "One delivery with its payload and every attempt")
    public DeliveryDetail get(@PathParam("id") UUID id) {
        Delivery delivery = deliveries
                .find(id)
                .map(this::delivery)
                .orElseThrow(() -> ApiException.notFound("delivery_not_found", "no delivery with id " + id));
        return new DeliveryDetail(
                delivery, Json.parse(outbox.deliveryPayload(id).orElseThrow()), deliveries.attempts(id));
    }

    /**
     * Skips the wait of a delivery that is backing off: its next attempt starts now, through its running workflow or,
     * when that is gone, a new run that resumes from the row (see {@link ImmediateRetry}).
     */
    @POST
    @Path("/{id}/retry-now")
    @Operation(operationId = "retryDeliveryNow", summary = "Skip the current backoff of a retrying delivery")
    public Map<String, String> retryNow(@PathParam("id") UUID id) {
        Delivery delivery = get(id).delivery();
        ImmediateRetry.Result result = immediateRetry.retryDelivery(id);
        if (result == ImmediateRetry.Result.REFUSED) {
            throw ApiException.conflict(
                    "not_retrying",
                    "delivery " + id + " is " + delivery.status()
                            + "; only a pending or retrying delivery can be retried now (replay a dead letter instead)");
        }
        return Map.of(
                "status",
                result == ImmediateRetry.Result.SIGNALLED ? "signalled" : "restarted",
                "workflowId",
                delivery.workflowId());
    }

    private Delivery delivery(DeliveryStore.Listed d) {
        String workflowId = OutboxDeliveryWorkflow.workflowId(d.outboxId());
        return new Delivery(
                d.id(),
                d.outboxId(),
                d.eventType(),
                d.aggregate().toString(),
                d.endpoint(),
                d.url(),
                d.status().name(),
                d.attempts(),
                d.nextAttemptAt(),
                d.lastStatus(),
                d.lastError(),
                d.createdAt(),
                d.completedAt(),
                workflowId,
                links.workflow(workflowId));
    }
}
