package dev.relaybox.service.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.swagger.v3.core.util.Json31;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ExtendedResourceContext;

/**
 * {@code GET /openapi.json}: the document of every route this application serves, generated once on first use, and
 * the {@code webhooks} Relaybox sends, read from the event-type catalog on every request so that it is always the
 * catalog as it is.
 */
@Path("/openapi.json")
@Tag(name = "meta")
public final class OpenApiResource {
    private final String version;
    private final Supplier<ObjectNode> webhooks;
    private volatile ObjectNode routes;

    public OpenApiResource(String version, Supplier<ObjectNode> webhooks) {
        this.version = version;
        this.webhooks = webhooks;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "openApi", summary = "This OpenAPI document, with a webhook per event type in the catalog")
    public String document(@Context ExtendedResourceContext resourceContext) {
        // Jersey's resource model as it serves requests: every registered resource, whoever registered it.
        ObjectNode built = routes;
        if (built == null) {
            built = Json31.mapper()
                    .valueToTree(OpenApiDocument.build(
                            resourceContext.getResourceModel().getRootResources(), version));
            routes = built;
        }
        ObjectNode document = built.deepCopy();
        ObjectNode section = webhooks.get();
        if (!section.isEmpty()) {
            document.set("webhooks", section);
        }
        return Json31.pretty(document);
    }
}
