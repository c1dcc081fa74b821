package dev.relaybox.service.tenants;

import dev.relaybox.activities.outbound.OutboxStore;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.activities.store.TenantStore;
import dev.relaybox.service.admin.EndpointRecovery;
import dev.relaybox.service.admin.Json;
import dev.relaybox.service.admin.ListParams;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.catalog.EventTypesResource;
import dev.relaybox.service.config.PortalFactory;
import dev.relaybox.service.outbound.EndpointView;
import dev.relaybox.service.outbound.Endpoints;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import io.dropwizard.auth.Auth;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code /portal/api}: what a tenant's customer may do through a portal link, and nothing beyond its own tenant. Each
 * route takes the tenant from the caller, never from the request, and goes through the same code as the admin API
 * with that tenant as its scope, so another tenant's ids answer 404 exactly as ids that do not exist.
 */
@Tag(name = "portal")
@Path("/portal/api")
@RolesAllowed(Caller.PORTAL)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class PortalResource {
    private final Jdbi jdbi;
    private final Endpoints endpoints;
    private final EndpointRecovery recovery;
    private final TenantDeliveries deliveries;
    private final Map<String, String> theme;

    /** {@code theme}: the look of every tenant's portal where its own theme says nothing. */
    public PortalResource(
            Jdbi jdbi,
            Endpoints endpoints,
            EndpointRecovery recovery,
            TenantDeliveries deliveries,
            Map<String, String> theme,
            PortalFactory.Quotas quotas) {
        this.theme = Map.copyOf(theme);
        this.quotas = quotas;
        this.jdbi = jdbi;
        this.endpoints = endpoints;
        this.recovery = recovery;
        this.deliveries = deliveries;
    }

    private final PortalFactory.Quotas quotas;
    private final TenantQuotas used = new TenantQuotas(System::currentTimeMillis);

    public record Me(Map<String, String> tenant, Map<String, String> theme) {}

    /** What {@code POST …/test} answers: the test event's outbox row. */
    public record TestEvent(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID outboxId) {}

    /** What {@code POST …/resend} answers. */
    public record Resending(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, allowableValues = "resending")
            String status) {
        static final Resending NOW = new Resending("resending");
    }

    @GET
    @Path("/me")
    @Operation(operationId = "portalMe", summary = "The tenant this link opens, and its portal theme")
    public Me me(@Parameter(hidden = true) @Auth Caller caller) {
        TenantStore.Tenant tenant = jdbi.withExtension(TenantStore.class, t -> t.find(caller.tenant()))
                .orElseThrow();
        Map<String, String> merged = new HashMap<>(theme);
        Json.parse(tenant.theme()).fields().forEachRemaining(field -> {
            if (field.getValue().isTextual()) {
                merged.put(field.getKey(), field.getValue().asText());
            }
        });
        return new Me(Map.of("key", tenant.key(), "name", tenant.name()), merged);
    }

    @GET
    @Path("/event-types")
    @Operation(operationId = "portalEventTypes", summary = "The event types an endpoint may subscribe to")
    public List<EventTypesResource.EventTypeView> eventTypes() {
        return EventTypesResource.EventTypeView.all(jdbi).stream()
                .filter(t -> !t.deprecated())
                .toList();
    }

    @GET
    @Path("/endpoints")
    @Operation(operationId = "portalListEndpoints", summary = "The tenant's endpoints")
    public List<EndpointView> listEndpoints(@Parameter(hidden = true) @Auth Caller caller) {
        return endpoints.list(caller.tenant());
    }

    @POST
    @Path("/endpoints")
    @Operation(
            operationId = "portalCreateEndpoint",
            summary = "Add an endpoint; the answer shows its secret, once",
            responses =
                    @ApiResponse(
                            responseCode = "201",
                            description = "created; the only answer that shows the secret",
                            content = @Content(schema = @Schema(implementation = EndpointView.class))))
    public Response createEndpoint(
            @Parameter(hidden = true) @Auth Caller caller, @NotNull @Valid PortalNewEndpoint request) {
        int existing = jdbi.withExtension(EndpointStore.class, store -> store.countOfTenant(caller.tenant()));
        if (existing >= quotas.endpoints()) {
            throw ApiException.conflict(
                    "quota_exceeded", "at most " + quotas.endpoints() + " endpoints; ask your provider for more");
        }
        return Response.status(201)
                .entity(endpoints.create(request.asEndpoint(), caller.tenant()))
                .build();
    }

    @GET
    @Path("/endpoints/{id}")
    @Operation(operationId = "portalGetEndpoint", summary = "One of the tenant's endpoints")
    public EndpointView getEndpoint(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return endpoints.get(id, caller.tenant());
    }

    @PATCH
    @Path("/endpoints/{id}")
    @Operation(
            operationId = "portalChangeEndpoint",
            summary = "Change an endpoint's URL, event types or limits, disable or enable it, rotate its secret")
    public EndpointView changeEndpoint(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @NotNull @Valid PortalEndpointChange change) {
        return endpoints.change(id, change.asChange(), caller.tenant());
    }

    @POST
    @Path("/endpoints/{id}/test")
    @Operation(
            operationId = "portalTestEndpoint",
            summary = "Send a relaybox.test event to this endpoint only",
            responses =
                    @ApiResponse(
                            responseCode = "202",
                            description = "the test event is in the outbox",
                            content = @Content(schema = @Schema(implementation = TestEvent.class))))
    public Response test(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        EndpointView endpoint = endpoints.get(id, caller.tenant());
        used.take(caller.tenant(), "test events", quotas.testsPerMinute());
        UUID outboxId =
                jdbi.withExtension(OutboxStore.class, store -> store.enqueueTest(id, endpoint.name(), caller.tenant()));
        return Response.accepted(new TestEvent(outboxId)).build();
    }

    @POST
    @Path("/endpoints/{id}/recover")
    @Operation(operationId = "portalRecoverEndpoint", summary = "Resend every failure of this endpoint since a time")
    public EndpointRecovery.Recovered recover(
            @Parameter(hidden = true) @Auth Caller caller,
            @PathParam("id") UUID id,
            @NotNull @Valid EndpointRecovery.RecoverRequest request) {
        endpoints.get(id, caller.tenant());
        used.take(caller.tenant(), "resends", quotas.resendsPerMinute());
        return recovery.recover(id, request, caller.getName(), caller.tenant());
    }

    @GET
    @Path("/endpoints/{id}/stats")
    @Operation(operationId = "portalEndpointStats", summary = "Delivered and failed attempts per hour, last 24 hours")
    public TenantDeliveries.Stats stats(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        endpoints.get(id, caller.tenant());
        return deliveries.stats(id);
    }

    @GET
    @Path("/deliveries")
    @Operation(operationId = "portalListDeliveries", summary = "The message log: deliveries to the tenant's endpoints")
    public TenantDeliveries.Listing listDeliveries(
            @Parameter(hidden = true) @Auth Caller caller,
            @QueryParam("endpoint") UUID endpoint,
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
            @QueryParam("limit") @DefaultValue("50") @Min(1) @Max(500) int limit,
            @QueryParam("cursor") String cursor) {
        return deliveries.list(
                caller.tenant(),
                endpoint,
                ListParams.status(DeliveryStatus.class, status),
                limit,
                ListParams.cursor(cursor));
    }

    @GET
    @Path("/deliveries/{id}")
    @Operation(operationId = "portalGetDelivery", summary = "One delivery with its payload and every attempt")
    public TenantDeliveries.Detail getDelivery(
            @Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        return deliveries.detail(caller.tenant(), id);
    }

    @POST
    @Path("/deliveries/{id}/resend")
    @Operation(
            operationId = "portalResendDelivery",
            summary = "Send a delivered or dead-lettered delivery again",
            responses =
                    @ApiResponse(
                            responseCode = "202",
                            description = "the delivery is due again",
                            content = @Content(schema = @Schema(implementation = Resending.class))))
    public Response resend(@Parameter(hidden = true) @Auth Caller caller, @PathParam("id") UUID id) {
        used.take(caller.tenant(), "resends", quotas.resendsPerMinute());
        deliveries.resend(caller.tenant(), id, caller.getName());
        return Response.accepted(Resending.NOW).build();
    }
}
