package dev.relaybox.service.api;

import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.glassfish.jersey.server.ExtendedResourceContext;

/** {@code GET /openapi.json}: the document of every route this application serves, generated once on first use. */
@Path("/openapi.json")
@Tag(name = "meta")
public final class OpenApiResource {
    private final String version;
    private volatile String document;

    public OpenApiResource(String version) {
        this.version = version;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "openApi", summary = "This OpenAPI document")
    public String document(@Context ExtendedResourceContext resourceContext) {
        // Jersey's resource model as it serves requests: every registered resource, whoever registered it.
        String built = document;
        if (built == null) {
            built = io.swagger.v3.core.util.Json31.pretty(
                    OpenApiDocument.build(resourceContext.getResourceModel().getRootResources(), version));
            document = built;
        }
        return built;
    }
}
