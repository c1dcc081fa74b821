package dev.relaybox.service.tenants;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.OpenApiDocument;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.service.auth.PortalTokens;
import dev.relaybox.service.config.PortalFactory;
import dev.relaybox.service.outbound.EndpointView;
import dev.relaybox.service.outbound.Endpoints;
import dev.relaybox.store.TenantStore;
import io.dropwizard.auth.Auth;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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

/**
 * {@code /admin/tenants}: the operator's customers ({@link Tenants}), what belongs to each, and the portal links that
 * let a customer manage its own endpoints.
 */
@Tag(name = "tenants")
@Path("/admin/tenants")
@RolesAllowed(Caller.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class TenantsResource {
    private final Tenants tenants;
    private final Endpoints endpoints;
    private final TenantDeliveries deliveries;
    private final PortalTokens tokens;
    private final PortalFactory portal;

    public TenantsResource(
            Tenants tenants,
            Endpoints endpoints,
            TenantDeliveries deliveries,
            PortalTokens tokens,
            PortalFactory portal) {
        this.tenants = tenants;
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.tokens = tokens;
        this.portal = portal;
    }

    @POST
    @Operation(
            operationId = "createTenant",
            summary = "Add a tenant: one of your customers, with its own endpoints and events",
            responses = {
                @ApiResponse(
                        responseCode = "201",
                        description = "created",
                        content = @Content(schema = @Schema(implementation = TenantView.class))),
                @ApiResponse(responseCode = "409", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response create(
            @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            schema =
                                                    @Schema(
                                                            implementation = TenantRequest.class,
                                                            requiredProperties = {"key", "name"})))
                    @NotNull
                    @Valid
                    TenantRequest request) {
        return Response.status(201).entity(tenants.create(request)).build();
    }

    @GET
    @Operation(operationId = "listTenants", summary = "Every tenant")
    public List<TenantView> list() {
        return tenants.list();
    }

    @GET
    @Path("/{key}")
    @Operation(operationId = "getTenant", summary = "One tenant")
    public TenantView get(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key) {
        return TenantView.of(tenants.find(key));
    }

    @PATCH
    @Path("/{key}")
    @Operation(
            operationId = "changeTenant",
            summary = "Rename a tenant, change its metadata or portal theme, disable or enable it")
    public TenantView change(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key,
            @NotNull @Valid TenantRequest request) {
        return tenants.change(key, request);
    }

    @GET
    @Path("/{key}/endpoints")
    @Operation(operationId = "listTenantEndpoints", summary = "A tenant's endpoints")
    public List<EndpointView> endpoints(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key) {
        tenants.find(key);
        return endpoints.list(key);
    }

    @GET
    @Path("/{key}/deliveries")
    @Operation(operationId = "listTenantDeliveries", summary = "The latest deliveries to a tenant's endpoints")
    public TenantDeliveries.Listing deliveries(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key) {
        tenants.find(key);
        return deliveries.list(key, null, null, 100, null);
    }

    /** What {@code POST …/portal-access} answers: the link to open or embed, the token in it, when both expire. */
    public record PortalAccess(String url, String token, Instant expiresAt, UUID sessionId) {}

    /** {@code ttl}: ISO-8601 ({@code PT30M}); at most {@code portal.maxLinkTtl}. */
    public record PortalAccessRequest(String ttl) {}

    @POST
    @Path("/{key}/portal-access")
    @Operation(
            operationId = "createPortalAccess",
            summary = "A short-lived link to the portal of this one tenant, to embed in your settings page or open",
            responses = {
                @ApiResponse(
                        responseCode = "201",
                        description = "the link",
                        content = @Content(schema = @Schema(implementation = PortalAccess.class))),
                @ApiResponse(responseCode = "404", ref = OpenApiDocument.ERROR_REF),
                @ApiResponse(responseCode = "422", ref = OpenApiDocument.ERROR_REF)
            })
    public Response portalAccess(
            @Parameter(hidden = true) @Auth Caller caller,
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key,
            PortalAccessRequest request) {
        TenantStore.Tenant tenant = tenants.find(key);
        if (!tenant.enabled()) {
            throw new ApiException(422, "tenant_disabled", "tenant \"" + key + "\" is disabled");
        }
        Duration ttl = ttl(request == null ? null : request.ttl());
        PortalTokens.Issued issued =
                tokens.issue(key, caller.getName(), Instant.now().plus(ttl));
        String url = portal.publicUrl() + "/portal#token=" + issued.token();
        return Response.status(201)
                .entity(new PortalAccess(url, issued.token(), issued.expiresAt(), issued.sessionId()))
                .build();
    }

    @DELETE
    @Path("/{key}/portal-access")
    @Operation(operationId = "revokePortalAccess", summary = "Revoke every portal link of the tenant")
    public Map<String, Integer> revokeAll(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key) {
        return Map.of("revoked", tenants.revoke(key, null));
    }

    @DELETE
    @Path("/{key}/portal-access/{sessionId}")
    @Operation(operationId = "revokePortalLink", summary = "Revoke one portal link")
    public Map<String, Integer> revoke(
            @Parameter(schema = @Schema(pattern = "^" + TenantStore.KEY + "$")) @PathParam("key") String key,
            @PathParam("sessionId") UUID sessionId) {
        return Map.of("revoked", tenants.revoke(key, sessionId));
    }

    private Duration ttl(String requested) {
        if (requested == null) {
            return portal.linkTtl();
        }
        Duration ttl;
        try {
            ttl = Duration.parse(requested);
        } catch (RuntimeException e) {
            throw new ApiException(422, "invalid_ttl", "ttl must be an ISO-8601 duration such as PT30M");
        }
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(portal.maxLinkTtl()) > 0) {
            throw new ApiException(422, "invalid_ttl", "ttl must be above zero and at most " + portal.maxLinkTtl());
        }
        return ttl;
    }
}
