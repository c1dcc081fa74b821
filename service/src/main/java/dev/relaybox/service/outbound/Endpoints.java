package dev.relaybox.service.outbound;

import dev.relaybox.activities.outbound.Destination;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.activities.signing.Hmac;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.Endpoint;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHeadersStore;
import dev.relaybox.store.EndpointHealthStore;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.TenantStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * Endpoints as a use case, each operation in its own transaction: register one, list them, read one, change one —
 * for the operator ({@code tenant} null: every endpoint) or for one tenant, who sees only its own: an endpoint of
 * another tenant is not found, a tenant endpoint's in-flight limit never exceeds the configured bound, and its URL is
 * judged as a stranger's. A secret is shown once, when created or rotated; header values once, when set. The admin
 * API, the portal and the tenant routes call this, never each other.
 */
public final class Endpoints {
    /** The smallest rate limit: one request an hour. */
    static final double MIN_RATE_LIMIT = 1.0 / 3600;
    /** The reason of a tenant's own disabling, the one a tenant may undo. */
    private static final String DISABLED_IN_THE_PORTAL = "disabled in the portal";

    private final Jdbi jdbi;
    private final EndpointUrlPolicy urlPolicy;
    private final EndpointUrlPolicy tenantUrlPolicy;
    private final Duration rotationGrace;
    private final int tenantMaxInFlight;

    public Endpoints(Jdbi jdbi, EndpointUrlPolicy urlPolicy, Duration rotationGrace, int tenantMaxInFlight) {
        this.jdbi = jdbi;
        this.urlPolicy = urlPolicy;
        this.tenantUrlPolicy = urlPolicy.forTenants();
        this.rotationGrace = rotationGrace;
        this.tenantMaxInFlight = tenantMaxInFlight;
    }

    /** Whether a tenant with this key exists, for an operator who names one. */
    public boolean tenantExists(String tenant) {
        return jdbi.withExtension(TenantStore.class, t -> t.find(tenant)).isPresent();
    }

    /** Creates an endpoint of {@code tenant} (null: the operator's own). */
    public EndpointView create(NewEndpoint request, String tenant) {
        Optional<Destination> destination =
                Optional.ofNullable(request.destination()).map(DestinationSettings::destination);
        checkUrl(request.url(), destination, tenant);
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
            destination.ifPresent(d -> h.attach(EndpointHeadersStore.class).setDestination(endpoint.id(), d.toJson()));
            return endpoint;
        });
        return view(created.id(), secret, options.headers());
    }

    /** The whole JSON for one endpoint: its controls and its health over the last hour. */
    private EndpointView view(UUID id, String revealedSecret, Map<String, String> revealedHeaders) {
        return view(find(id, null), revealedSecret, revealedHeaders);
    }

    private EndpointView view(Endpoint endpoint, String revealedSecret, Map<String, String> revealedHeaders) {
        return jdbi.withHandle(h -> EndpointView.of(endpoint, revealedSecret, revealedHeaders)
                .with(
                        h.attach(EndpointStore.class).controls(endpoint.id()).orElse(EndpointControls.defaults()),
                        h.attach(EndpointHealthStore.class)
                                .health(endpoint.id(), Instant.now().minus(Duration.ofHours(1)))
                                .orElse(null)));
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

    /** The endpoint, when it is {@code tenant}'s (or when {@code tenant} is null). */
    public EndpointView get(UUID id, String tenant) {
        return view(find(id, tenant), null, null);
    }

    /** Changes the endpoint, when it is {@code tenant}'s (or when {@code tenant} is null). */
    public EndpointView change(UUID id, EndpointChange change, String tenant) {
        Endpoint found = find(id, tenant);
        Optional<Destination> destination = change.destination() == null
                ? Destination.fromJson(found.destination())
                : Optional.of(change.destination().destination());
        if (change.url() != null || change.destination() != null) {
            checkUrl(change.url() == null ? found.url() : change.url(), destination, found.tenant());
        }
        ReceiverOptions options = ReceiverOptions.checked(change.filter(), change.headers());
        String revealedSecret = jdbi.inTransaction(h -> {
            EndpointStore dao = h.attach(EndpointStore.class);
            Endpoint current = dao.find(id).orElseThrow(() -> notFound(id));
            changeControls(dao, id, change, current.tenant() == null ? null : tenantMaxInFlight);
            options.write(h, id);
            if (change.destination() != null) {
                h.attach(EndpointHeadersStore.class)
                        .setDestination(id, destination.orElseThrow().toJson());
            }
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

    /**
     * The endpoint's row, when it is {@code tenant}'s (or when {@code tenant} is null), else 404: for a route that
     * needs to know only that the endpoint is the caller's, without its controls and health.
     */
    public Endpoint find(UUID id, String tenant) {
        return jdbi.withExtension(EndpointStore.class, dao -> dao.find(id))
                .filter(e -> tenant == null || tenant.equals(e.tenant()))
                .orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(UUID id) {
        return ApiException.notFound("endpoint_not_found", "no endpoint with id " + id);
    }

    /**
     * An HTTP endpoint's URL, or a broker's with its destination's settings. A tenant's endpoint is judged as a
     * stranger's: see {@link EndpointUrlPolicy#forTenants}.
     */
    private void checkUrl(String url, Optional<Destination> destination, String tenant) {
        destination
                .flatMap(d -> tenant == null ? d.problem() : d.problem().or(d::tenantProblem))
                .ifPresent(problem -> {
                    throw new ApiException(422, "destination_invalid", problem);
                });
        Set<String> schemes = destination.map(Destination::schemes).orElse(EndpointUrlPolicy.HTTP);
        (tenant == null ? urlPolicy : tenantUrlPolicy).problem(url, schemes).ifPresent(problem -> {
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
