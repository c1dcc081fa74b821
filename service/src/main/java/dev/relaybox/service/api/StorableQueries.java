package dev.relaybox.service.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.List;
import java.util.Map;

/**
 * Refuses a query parameter with a NUL character ({@code %00}) before any resource reads it: PostgreSQL can neither
 * store nor compare one in text, so it would surface as a server error from whichever query took it. The JSON bodies
 * have the same rule ({@link JsonBodyReader}).
 */
public final class StorableQueries implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
        for (Map.Entry<String, List<String>> parameter :
                request.getUriInfo().getQueryParameters().entrySet()) {
            if (parameter.getKey().indexOf('\u0000') >= 0
                    || parameter.getValue().stream().anyMatch(value -> value.indexOf('\u0000') >= 0)) {
                throw ApiException.badRequest(
                        "invalid_query",
                        "query parameter " + parameter.getKey().replace('\u0000', '?')
                                + " contains a NUL character, which cannot be stored or searched");
            }
        }
    }
}
