package dev.relaybox.service.auth;

import dev.relaybox.service.api.ApiError;
import dev.relaybox.service.config.AuthFactory;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.AuthValueFactoryProvider;
import io.dropwizard.auth.Authenticator;
import io.dropwizard.auth.UnauthorizedHandler;
import io.dropwizard.auth.oauth.OAuthCredentialAuthFilter;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.glassfish.jersey.server.filter.RolesAllowedDynamicFeature;

/** Bearer-token authentication for {@code @RolesAllowed} resources; a 401 carries the JSON error shape. */
public final class BearerTokens implements Authenticator<String, Caller> {
    private final List<byte[]> adminTokens;
    private final List<byte[]> producerTokens;
    private final PortalTokens portalTokens;

    private BearerTokens(AuthFactory config, PortalTokens portalTokens) {
        this.portalTokens = portalTokens;
        this.adminTokens =
                config.adminTokens().stream().map(BearerTokens::bytes).toList();
        this.producerTokens =
                config.producerTokens().stream().map(BearerTokens::bytes).toList();
    }

    public static void register(JerseyEnvironment jersey, AuthFactory config, PortalTokens portalTokens) {
        providers(config, portalTokens).forEach(jersey::register);
    }

    /**
     * The Jersey providers that authenticate and authorise callers; a resource test registers the same. Without
     * {@code portalTokens}, no portal link is accepted.
     */
    public static List<Object> providers(AuthFactory config, PortalTokens portalTokens) {
        return List.of(
                new AuthDynamicFeature(new OAuthCredentialAuthFilter.Builder<Caller>()
                        .setAuthenticator(new BearerTokens(config, portalTokens))
                        .setAuthorizer((caller, role, request) -> caller.roles().contains(role))
                        .setPrefix("Bearer")
                        .setUnauthorizedHandler(new JsonUnauthorized())
                        .buildAuthFilter()),
                new RolesAllowedDynamicFeature(),
                new AuthValueFactoryProvider.Binder<>(Caller.class));
    }

    @Override
    public Optional<Caller> authenticate(String token) {
        if (PortalTokens.looksLikePortalToken(token)) {
            return portalTokens == null
                    ? Optional.empty()
                    : portalTokens.verify(token).map(s -> Caller.portal(s.tenant(), s.id().toString()));
        }
        byte[] presented = bytes(token);
        // Compare against every token, in constant time, so timing tells nothing about which one is close.
        boolean admin = matchesAny(adminTokens, presented);
        boolean producer = matchesAny(producerTokens, presented);
        if (admin) {
            return Optional.of(Caller.of(Caller.ADMIN, Set.of(Caller.ADMIN, Caller.PRODUCER), token));
        }
        if (producer) {
            return Optional.of(Caller.of(Caller.PRODUCER, Set.of(Caller.PRODUCER), token));
        }
        return Optional.empty();
    }

    private static boolean matchesAny(List<byte[]> tokens, byte[] presented) {
        boolean match = false;
        for (byte[] token : tokens) {
            match |= MessageDigest.isEqual(token, presented);
        }
        return match;
    }

    private static byte[] bytes(String token) {
        return token.getBytes(StandardCharsets.UTF_8);
    }

    private static final class JsonUnauthorized implements UnauthorizedHandler {
        @Override
        public Response buildResponse(String prefix, String realm) {
            return Response.status(Response.Status.UNAUTHORIZED)
                    .header("WWW-Authenticate", prefix + " realm=\"" + realm + "\"")
                    .type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(new ApiError(
                            "unauthorized", "a valid bearer token is required (Authorization: Bearer <token>)"))
                    .build();
        }
    }
}
