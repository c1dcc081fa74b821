package dev.relaybox.service.outbound;

import dev.relaybox.activities.outbound.DeliveryDao;
import dev.relaybox.activities.outbound.Endpoint;
import dev.relaybox.activities.outbound.EndpointDao;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.WebhookSigner;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.auth.Caller;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
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
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** {@code /admin/endpoints}: subscribers, their filters and secrets. Secrets are shown once, when created or rotated. */
@Path("/admin/endpoints")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class EndpointsResource {
    private final Jdbi jdbi;
    private final EndpointUrlPolicy urlPolicy;
    private final Duration rotationGrace;

    public EndpointsResource(Jdbi jdbi, EndpointUrlPolicy urlPolicy, Duration rotationGrace) {
        this.jdbi = jdbi;
        this.urlPolicy = urlPolicy;
        this.rotationGrace = rotationGrace;
    }

    public record NewEndpoint(
            @NotNull @Pattern(regexp = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}") String name,
            @NotNull @Size(max = 2000) String url,
            @Size(min = 1, max = 50) List<@NotNull @Pattern(regexp = "\\*|[A-Za-z0-9_.-]+(\\.\\*)?") String> eventTypes,
            String secret) {}

    public record EndpointChange(
            @Size(max = 2000) String url,
            @Size(min = 1, max = 50) List<@NotNull @Pattern(regexp = "\\*|[A-Za-z0-9_.-]+(\\.\\*)?") String> eventTypes,
            Boolean enabled,
            @Size(max = 500) String disabledReason,
            Boolean rotateSecret) {}

    /** What the API shows; {@code secret} only in the answer that created it. */
    public record EndpointView(UUID id, String name, String url, List<String> eventTypes, boolean enabled,
            String disabledReason, boolean rotatingSecret, String secret, Instant createdAt, Instant updatedAt) {
        static EndpointView of(Endpoint e, String revealedSecret) {
            return new EndpointView(e.id(), e.name(), e.url(), e.eventTypes(), e.enabled(), e.disabledReason(),
                    e.previousSecret() != null && e.previousSecretExpiresAt() != null
                            && Instant.now().isBefore(e.previousSecretExpiresAt()),
                    revealedSecret, e.createdAt(), e.updatedAt());
        }
    }

    @POST
    public Response create(@NotNull @Valid NewEndpoint request) {
        checkUrl(request.url());
        String secret = request.secret() == null ? WebhookSigner.newSecret() : request.secret();
        checkSecret(secret);
        List<String> eventTypes = request.eventTypes() == null ? List.of("*") : request.eventTypes();
        Endpoint created = jdbi.withExtension(EndpointDao.class,
                        dao -> dao.insert(request.name(), request.url(), secret, eventTypes))
                .orElseThrow(() -> ApiException.conflict("endpoint_exists",
                        "an endpoint named \"" + request.name() + "\" already exists"));
        return Response.status(201).entity(EndpointView.of(created, secret)).build();
    }

    @GET
    public List<EndpointView> list() {
        return jdbi.withExtension(EndpointDao.class, EndpointDao::list).stream()
                .map(e -> EndpointView.of(e, null))
                .toList();
    }

    @GET
    @Path("/{id}")
    public EndpointView get(@PathParam("id") UUID id) {
        return EndpointView.of(find(id), null);
    }

    @PATCH
    @Path("/{id}")
    public EndpointView change(@PathParam("id") UUID id, @NotNull @Valid EndpointChange change) {
        if (change.url() != null) {
            checkUrl(change.url());
        }
        return jdbi.inTransaction(h -> {
            EndpointDao dao = h.attach(EndpointDao.class);
            Endpoint current = dao.find(id).orElseThrow(() -> notFound(id));
            if (change.url() != null || change.eventTypes() != null) {
                dao.update(id, change.url() == null ? current.url() : change.url(),
                        change.eventTypes() == null ? current.eventTypes() : change.eventTypes());
            }
            if (change.enabled() != null) {
                dao.setEnabled(id, change.enabled(), change.enabled() ? null
                        : change.disabledReason() == null ? "disabled by an operator" : change.disabledReason());
                if (change.enabled() && !current.enabled()) {
                    // What arrived while it was disabled was kept, paused: it goes out now.
                    DeliveryDao deliveries = h.attach(DeliveryDao.class);
                    if (deliveries.resumePaused(id) > 0) {
                        deliveries.wakeDispatcher();
                    }
                }
            }
            String revealed = null;
            if (Boolean.TRUE.equals(change.rotateSecret())) {
                revealed = WebhookSigner.newSecret();
                dao.rotateSecret(id, revealed, Instant.now().plus(rotationGrace));
            }
            return EndpointView.of(dao.find(id).orElseThrow(), revealed);
        });
    }

    private Endpoint find(UUID id) {
        return jdbi.withExtension(EndpointDao.class, dao -> dao.find(id)).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(UUID id) {
        return ApiException.notFound("endpoint_not_found", "no endpoint with id " + id);
    }

    private void checkUrl(String url) {
        urlPolicy.problem(url).ifPresent(problem -> {
            throw new ApiException(422, "url_refused", problem);
        });
    }

    private static void checkSecret(String secret) {
        try {
            WebhookSigner.key(secret);
        } catch (IllegalArgumentException e) {
            throw new ApiException(422, "invalid_secret", e.getMessage());
        }
    }
}
