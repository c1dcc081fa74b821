package dev.relaybox.service.outbound;

import dev.relaybox.activities.outbound.DeliveryDao;
import dev.relaybox.activities.outbound.Endpoint;
import dev.relaybox.activities.outbound.EndpointDao;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.WebhookSigner;
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
@Tag(name = "endpoints")
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
    @Operation(operationId = "createEndpoint", summary = "Register an endpoint; the answer shows its signing secret, once",
            requestBody = @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = NewEndpoint.class), examples = @ExampleObject(name = "receiver",
                    value = "{\"name\": \"my-receiver\", \"url\": \"https://example.com/hooks\", \"eventTypes\": [\"order.*\"]}"))),
            responses = {
                @ApiResponse(responseCode = "201", description = "created; the only answer that shows the secret",
                        content = @Content(schema = @Schema(implementation = EndpointView.class))),
                @ApiResponse(responseCode = "400", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)})
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
    @Operation(operationId = "listEndpoints", summary = "Every endpoint")
    public List<EndpointView> list() {
        return jdbi.withExtension(EndpointDao.class, EndpointDao::list).stream()
                .map(e -> EndpointView.of(e, null))
                .toList();
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getEndpoint", summary = "One endpoint")
    public EndpointView get(@PathParam("id") UUID id) {
        return EndpointView.of(find(id), null);
    }

    @PATCH
    @Path("/{id}")
    @Operation(operationId = "changeEndpoint", summary = "Change an endpoint's URL or event types, enable or disable it, rotate its secret")
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
