package dev.relaybox.service.outbound;

import dev.relaybox.activities.outbound.DeliveryStore;
import dev.relaybox.activities.outbound.Endpoint;
import dev.relaybox.activities.outbound.EndpointControls;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.OutboxStore;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.signing.Hmac;
import dev.relaybox.activities.store.EndpointHealthStore;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.activities.store.TenantStore;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code /admin/endpoints}: subscribers, their filters, headers and secrets. A secret is shown once, when created or
 * rotated; header values once, when set. The portal calls the same methods scoped to its tenant: an endpoint of
 * another tenant is not found, and a tenant endpoint's in-flight limit never exceeds the configured bound.
 */
@Tag(name = "endpoints")
@Path("/admin/endpoints")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class EndpointsResource {
    /** The smallest rate limit: one request an hour. */
    static final double MIN_RATE_LIMIT = 1.0 / 3600;

    private final Jdbi jdbi;
    /** The reason of a tenant's own disabling, the one a tenant may undo. */
    private static final String DISABLED_IN_THE_PORTAL = "disabled in the portal";

    private final EndpointUrlPolicy urlPolicy;
    private final EndpointUrlPolicy tenantUrlPolicy;
    private final Duration rotationGrace;
    private final int tenantMaxInFlight;

    public EndpointsResource(Jdbi jdbi, EndpointUrlPolicy urlPolicy, Duration rotationGrace, int tenantMaxInFlight) {
        this.jdbi = jdbi;
        this.urlPolicy = urlPolicy;
        this.tenantUrlPolicy = urlPolicy.forTenants();
        this.rotationGrace = rotationGrace;
        this.tenantMaxInFlight = tenantMaxInFlight;
    }

    @POST
    @Operation(
            operationId = "createEndpoint",
            summary = "Register an endpoint; the answer shows its signing secret, once",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = NewEndpoint.class),
                                            examples =
                                                    @ExampleObject(
                                                            name = "receiver",
                                                            value =
                                                                    "{\"name\": \"my-receiver\", \"url\": \"https://example.com/hooks\", \"eventTypes\": [\"order.*\"]}"))),
            responses = {
                @ApiResponse(
                        responseCode = "201",
                        description = "created; the only answer that shows the secret",
                        content = @Content(schema = @Schema(implementation = EndpointView.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response create(@NotNull @Valid NewEndpoint request) {
        if (request.tenant() != null
                && jdbi.withExtension(TenantStore.class, t -> t.find(request.tenant()))
                        .isEmpty()) {
            throw new ApiException(422, "unknown_tenant", "no tenant with key \"" + request.tenant() + "\"");
        }
        return create(request, request.tenant());
    }

    /** Creates an endpoint of {@code tenant} (null: the operator's own). */
    public Response create(NewEndpoint request, String tenant) {
        checkUrl(request.url(), tenant);
        ReceiverOptions options = ReceiverOptions.checked(request.filter(), request.headers());
        checkBurst(request.burst(), request.rateLimit(), null);
        String secret = request.secret() == null ? WebhookSigner.newSecret() : request.secret();
        checkSecret(secret);
        List<String> eventTypes = request.eventTypes() == null ? List.of("*") : request.eventTypes();
        EndpointControls controls = new EndpointControls(
                positiveOrNull(request.rateLimit()),
                request.burst(),
                bounded(tenant, positiveOrNull(request.maxInFlight())),
                Boolean.TRUE.equals(request.ordered()),
                request.payloadFormat() == null ? EndpointControls.ENVELOPE : request.payloadFormat());
        Endpoint created = jdbi.inTransaction(h -> {
            EndpointStore store = h.attach(EndpointStore.class);
            Endpoint endpoint = store.insert(tenant, request.name(), request.url(), secret, eventTypes)
                    .orElseThrow(() -> ApiException.conflict(
                            "endpoint_exists", "an endpoint named \"" + request.name() + "\" already exists"));
            store.setControls(endpoint.id(), controls);
            options.write(h, endpoint.id());
            return endpoint;
        });
        return Response.status(201)
                .entity(view(created.id(), secret, options.headers()))
                .build();
    }

    /** The whole JSON for one endpoint: its controls and its health over the last hour. */
    private EndpointView view(UUID id, String revealedSecret, Map<String, String> revealedHeaders) {
        Endpoint endpoint = find(id, null);
        return jdbi.withHandle(h -> EndpointView.of(endpoint, revealedSecret, revealedHeaders)
                .with(
                        h.attach(EndpointStore.class).controls(endpoint.id()).orElse(EndpointControls.defaults()),
                        h.attach(EndpointHealthStore.class)
                                .health(endpoint.id(), Instant.now().minus(Duration.ofHours(1)))
                                .orElse(null)));
    }

    @GET
    @Operation(operationId = "listEndpoints", summary = "Every endpoint")
    public List<EndpointView> list() {
        return list(null);
    }

    /** Every endpoint of {@code tenant}, or every endpoint at all when it is null. */
    public List<EndpointView> list(String tenant) {
        return jdbi.withHandle(h -> {
            EndpointStore store = h.attach(EndpointStore.class);
            Map<UUID, EndpointHealthStore.Health> health =
                    h.attach(EndpointHealthStore.class).health(Instant.now().minus(Duration.ofHours(1))).stream()
                            .collect(Collectors.toMap(EndpointHealthStore.Health::endpointId, x -> x));
            return (tenant == null ? store.list() : store.listOfTenant(tenant))
                    .stream()
                            .map(e -> EndpointView.of(e, null, null)
                                    .with(
                                            store.controls(e.id()).orElse(EndpointControls.defaults()),
                                            health.get(e.id())))
                            .toList();
        });
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getEndpoint", summary = "One endpoint")
    public EndpointView get(@PathParam("id") UUID id) {
        return get(id, null);
    }

    /** The endpoint, when it is {@code tenant}'s (or when {@code tenant} is null). */
    public EndpointView get(UUID id, String tenant) {
        find(id, tenant);
        return view(id, null, null);
    }

    @PATCH
    @Path("/{id}")
    @Operation(
            operationId = "changeEndpoint",
            summary = "Change an endpoint's URL, event types, filter, headers or controls, enable or disable it,"
                    + " rotate its secret")
    public EndpointView change(@PathParam("id") UUID id, @NotNull @Valid EndpointChange change) {
        return change(id, change, null);
    }

    /** Changes the endpoint, when it is {@code tenant}'s (or when {@code tenant} is null). */
    public EndpointView change(UUID id, EndpointChange change, String tenant) {
        Endpoint found = find(id, tenant);
        if (change.url() != null) {
            checkUrl(change.url(), found.tenant());
        }
        ReceiverOptions options = ReceiverOptions.checked(change.filter(), change.headers());
        String revealedSecret = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            Endpoint current = dao.find(id).orElseThrow(() -> notFound(id));
            changeControls(dao, id, change, current.tenant() == null ? null : tenantMaxInFlight);
            options.write(h, id);
            if (change.url() != null || change.eventTypes() != null) {
                dao.update(
                        id,
                        change.url() == null ? current.url() : change.url(),
                        change.eventTypes() == null ? current.eventTypes() : change.eventTypes());
            }
            if (change.enabled() != null) {
                if (tenant != null && change.enabled() && !current.enabled()) {
                    checkTenantMayEnable(current);
                }
                dao.setEnabled(id, change.enabled(), change.enabled() ? null : disabledReason(change, tenant));
                if (change.enabled() && !current.enabled()) {
                    // What arrived while it was disabled was kept, paused: it goes out now.
                    if (h.attach(DeliveryStore.class).resumePaused(id) > 0) {
                        h.attach(OutboxStore.class).wakeDispatcher();
                    }
                }
            }
            if (!Boolean.TRUE.equals(change.rotateSecret())) {
                return null;
            }
            String rotated = WebhookSigner.newSecret();
            dao.rotateSecret(id, rotated, Instant.now().plus(rotationGrace));
            return rotated;
        });
        return view(id, revealedSecret, options.headers());
    }

    /** Why the endpoint is disabled: a tenant's own disabling is marked as such, whatever it wrote. */
    private static String disabledReason(EndpointChange change, String tenant) {
        if (tenant != null) {
            return DISABLED_IN_THE_PORTAL;
        }
        return change.disabledReason() == null ? "disabled by an operator" : change.disabledReason();
    }

    /**
     * A tenant enables again only what it disabled itself: an endpoint the operator disabled, or Relaybox (the breaker,
     * a 410), stays disabled until the operator enables it.
     */
    private static void checkTenantMayEnable(Endpoint current) {
        if (!DISABLED_IN_THE_PORTAL.equals(current.disabledReason())) {
            throw new ApiException(
                    409,
                    "disabled_by_operator",
                    "this endpoint was disabled by your provider (" + current.disabledReason()
                            + "); only they can enable it again");
        }
    }

    private static void changeControls(EndpointStore dao, UUID id, EndpointChange change, Integer maxInFlightBound) {
        EndpointControls current = dao.controls(id).orElse(EndpointControls.defaults());
        Double rateLimit = change.rateLimit() == null ? current.rateLimit() : positiveOrNull(change.rateLimit());
        checkBurst(change.burst(), rateLimit, change.rateLimit());
        dao.setControls(
                id,
                new EndpointControls(
                        rateLimit,
                        change.burst() != null ? change.burst() : rateLimit == null ? null : current.burst(),
                        bound(
                                change.maxInFlight() == null
                                        ? current.maxInFlight()
                                        : positiveOrNull(change.maxInFlight()),
                                maxInFlightBound),
                        change.ordered() == null ? current.ordered() : change.ordered(),
                        change.payloadFormat() == null ? current.payloadFormat() : change.payloadFormat()));
        if (Boolean.TRUE.equals(change.enabled())) {
            // Re-enabled by an operator: start again with a closed circuit rather than the old failure streak.
            dao.closeCircuit(id);
        }
    }

    private static void checkBurst(Integer burst, Double rateLimit, Double requestedRate) {
        if (burst != null && rateLimit == null) {
            throw new ApiException(
                    422,
                    "invalid_controls",
                    requestedRate == null ? "burst needs a rateLimit" : "burst needs a rateLimit above 0");
        }
    }

    /**
     * 0 in a request means "no limit". Above it, at least one request an hour: a smaller limit holds the endpoint's
     * deliveries for longer than any schedule, which is a mistake rather than a limit (disable the endpoint instead).
     */
    private static Double positiveOrNull(Double value) {
        if (value != null && value > 0 && value < MIN_RATE_LIMIT) {
            throw new ApiException(
                    422,
                    "invalid_controls",
                    "rateLimit is requests a second: 0 for no limit, or at least one an hour (1/3600, about 0.00028)");
        }
        return value == null || value <= 0 ? null : value;
    }

    private static Integer positiveOrNull(Integer value) {
        return value == null || value <= 0 ? null : value;
    }

    /** A tenant endpoint holds at most the configured number of HTTP attempts at a time, however it is set. */
    private Integer bounded(String tenant, Integer maxInFlight) {
        return tenant == null ? maxInFlight : bound(maxInFlight, tenantMaxInFlight);
    }

    private static Integer bound(Integer maxInFlight, Integer bound) {
        if (bound == null) {
            return maxInFlight;
        }
        return maxInFlight == null ? bound : Integer.valueOf(Math.min(maxInFlight, bound));
    }

    private Endpoint find(UUID id, String tenant) {
        return jdbi.withExtension(EndpointStore.class, dao -> dao.find(id))
                .filter(e -> tenant == null || tenant.equals(e.tenant()))
                .orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(UUID id) {
        return ApiException.notFound("endpoint_not_found", "no endpoint with id " + id);
    }

    /** A tenant's endpoint is judged as a stranger's: see {@link EndpointUrlPolicy#forTenants}. */
    private void checkUrl(String url, String tenant) {
        (tenant == null ? urlPolicy : tenantUrlPolicy).problem(url).ifPresent(problem -> {
            throw new ApiException(422, "url_refused", problem);
        });
    }

    private static void checkSecret(String secret) {
        try {
            Hmac.secretKey(secret);
        } catch (IllegalArgumentException e) {
            throw new ApiException(422, "invalid_secret", e.getMessage());
        }
    }
}
