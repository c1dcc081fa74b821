package dev.relaybox.service.api;

import dev.relaybox.service.auth.Caller;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.jaxrs2.Reader;
import io.swagger.v3.oas.integration.SwaggerConfiguration;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import jakarta.annotation.security.RolesAllowed;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;

/**
 * The OpenAPI 3.1 document of the running application. swagger-jaxrs2's {@link Reader} generates it from the JAX-RS
 * annotations of every resource class Jersey serves; then two things the annotations would only repeat are added
 * from the code itself: each operation's bearer scheme, from its {@code @RolesAllowed}, the one error shape
 * ({@link ApiError}) on every operation, what every text query parameter may hold ({@link StorableQueries}), and
 * whole-value patterns. {@link OpenApiResource} adds the {@code webhooks} section.
 */
public final class OpenApiDocument {
    public static final String ADMIN_SCHEME = "admin";
    public static final String PRODUCER_SCHEME = "producer";
    public static final String PORTAL_SCHEME = "portal";
    private static final String ERROR_SCHEMA = "ApiError";
    private static final String ERROR_RESPONSE = "Error";
    /** For {@code @ApiResponse(ref = ...)}: a status answered with the one error shape. */
    public static final String ERROR_REF = "#/components/responses/" + ERROR_RESPONSE;

    private static final String JSON = "application/json";
    private static final String WITHOUT_NUL = "^[^\\x00]*$";
    /** Text with something besides the spaces and control characters it is trimmed of ({@code @NotBlank}); no NUL. */
    public static final String NOT_BLANK = "^[^\\x00]*[^\\x00-\\x20][^\\x00]*$";

    private static final String AGGREGATE = "^([^:\\x00]+:[^\\x00]+)?$";

    private OpenApiDocument() {}

    /** A route as Jersey serves it: HTTP method, path template (without regular expressions), and Java method. */
    public record Route(String httpMethod, String path, Method javaMethod) {}

    /** Every route of the given root resources, from Jersey's resource model; the model's own extras excluded. */
    public static List<Route> routes(List<Resource> rootResources) {
        List<Route> routes = new ArrayList<>();
        for (Resource root : rootResources) {
            collect(root, "", routes);
        }
        return routes;
    }

    private static void collect(Resource resource, String parentPath, List<Route> routes) {
        if (resource.isExtended()) {
            return;
        }
        String path = join(parentPath, resource.getPath());
        for (ResourceMethod method : resource.getResourceMethods()) {
            if (!method.isExtended()) {
                routes.add(new Route(
                        method.getHttpMethod(), path, method.getInvocable().getDefinitionMethod()));
            }
        }
        for (Resource child : resource.getChildResources()) {
            collect(child, path, routes);
        }
    }

    /** {@code /a} + {@code {id: [0-9]+}/} is {@code /a/{id}}: the form OpenAPI paths take. */
    static String join(String parent, String path) {
        String joined = (parent + "/" + (path == null ? "" : path))
                .replaceAll("\\{\\s*(\\w[\\w.-]*)\\s*:[^}]*}", "{$1}")
                .replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    static {
        // The reader of OpenAPI 3.1 documents resolves models through this instance.
        ModelConverters.getInstance(true).addConverter(new NullableFields());
    }

    public static OpenAPI build(List<Resource> rootResources, String version) {
        List<Route> routes = routes(rootResources);
        Set<Class<?>> classes = new LinkedHashSet<>();
        routes.forEach(route -> classes.add(route.javaMethod().getDeclaringClass()));
        SwaggerConfiguration generation = new SwaggerConfiguration()
                .openAPI(base(version))
                .openAPI31(true)
                .readAllResources(true);
        OpenAPI openApi = new Reader(generation).read(classes);
        for (Route route : routes) {
            PathItem item =
                    openApi.getPaths() == null ? null : openApi.getPaths().get(route.path());
            Operation operation =
                    item == null ? null : item.readOperationsMap().get(PathItem.HttpMethod.valueOf(route.httpMethod()));
            if (operation != null) {
                describeSecurityAndErrors(operation, rolesAllowed(route.javaMethod()));
                describeParameters(operation);
            }
        }
        if (openApi.getComponents() != null && openApi.getComponents().getSchemas() != null) {
            openApi.getComponents().getSchemas().values().forEach(OpenApiDocument::anchorPatterns);
        }
        return openApi;
    }

    /**
     * A Bean Validation {@code @Pattern} must match the whole value; a JSON Schema {@code pattern} need only occur in
     * it. Each pattern taken from one is anchored, so that {@code "order.paid!"} is outside the document as it is
     * outside the service.
     */
    private static void anchorPatterns(Schema<?> schema) {
        if (schema == null) {
            return;
        }
        String pattern = schema.getPattern();
        if (pattern != null && !pattern.startsWith("^")) {
            schema.setPattern("^(?:" + pattern + ")$");
        }
        if (schema.getProperties() != null) {
            schema.getProperties().values().forEach(OpenApiDocument::anchorPatterns);
        }
        anchorPatterns(schema.getItems());
        for (List<Schema> alternatives : Arrays.asList(schema.getAnyOf(), schema.getAllOf(), schema.getOneOf())) {
            if (alternatives != null) {
                alternatives.forEach(OpenApiDocument::anchorPatterns);
            }
        }
    }

    private static OpenAPI base(String version) {
        Components components = new Components()
                .addSecuritySchemes(
                        ADMIN_SCHEME,
                        new SecurityScheme()
                                .type(SecurityScheme.Type.HTTP)
                                .scheme("bearer")
                                .description(
                                        "An admin token (auth.adminTokens): the admin API, and the producer API too."))
                .addSecuritySchemes(
                        PRODUCER_SCHEME,
                        new SecurityScheme()
                                .type(SecurityScheme.Type.HTTP)
                                .scheme("bearer")
                                .description("A producer token (auth.producerTokens): POST /outbox and GET /entities."))
                .addSecuritySchemes(
                        PORTAL_SCHEME,
                        new SecurityScheme()
                                .type(SecurityScheme.Type.HTTP)
                                .scheme("bearer")
                                .description(
                                        "A portal link's token (rbp_…, from POST /admin/tenants/{key}/portal-access):"
                                                + " /portal/api, for that one tenant."));
        ModelConverters.getInstance().read(ApiError.class).forEach(components::addSchemas);
        components.addResponses(
                ERROR_RESPONSE,
                new ApiResponse()
                        .description("The one error shape: a stable code and a reason for people. Nothing was changed.")
                        .content(new Content()
                                .addMediaType(
                                        JSON,
                                        new MediaType()
                                                .schema(new Schema<>().$ref(ERROR_SCHEMA))
                                                .addExamples(
                                                        "payload_too_large",
                                                        new Example()
                                                                .value(Map.of(
                                                                        "error",
                                                                        "payload_too_large",
                                                                        "reason",
                                                                        "the body is larger than 262144 bytes"))))));
        return new OpenAPI()
                .info(new Info().title("Relaybox").version(version).description("""
                        Webhooks that survive failure in both directions. Producers enqueue outbound events \
                        (POST /outbox); partners send inbound webhooks (POST /webhooks/{partner}); operators use \
                        the admin API. Every error answer has one shape: {"error", "reason"}."""))
                .components(components);
    }

    private static String[] rolesAllowed(Method method) {
        RolesAllowed roles = method.getAnnotation(RolesAllowed.class);
        if (roles == null) {
            roles = method.getDeclaringClass().getAnnotation(RolesAllowed.class);
        }
        return roles == null ? new String[0] : roles.value();
    }

    /**
     * A text query parameter holds no NUL character ({@link StorableQueries} refuses one), an {@code aggregate}
     * filter is written {@code type:id} (empty, it filters nothing), and every pattern matches the whole value.
     */
    private static void describeParameters(Operation operation) {
        if (operation.getParameters() == null) {
            return;
        }
        for (Parameter parameter : operation.getParameters()) {
            Schema<?> schema = parameter.getSchema();
            boolean text = schema != null
                    && ("string".equals(schema.getType())
                            || (schema.getTypes() != null && schema.getTypes().contains("string")));
            if ("query".equals(parameter.getIn()) && text && schema.getPattern() == null && schema.getEnum() == null) {
                schema.setPattern(parameter.getName().equals("aggregate") ? AGGREGATE : WITHOUT_NUL);
            }
            anchorPatterns(schema);
        }
    }

    private static void describeSecurityAndErrors(Operation operation, String[] roles) {
        Set<String> schemes = new LinkedHashSet<>();
        for (String role : roles) {
            if (role.equals(Caller.PORTAL)) {
                schemes.add(PORTAL_SCHEME);
                continue;
            }
            // An admin token carries the producer role too (see BearerTokens), so it opens producer routes.
            if (role.equals(Caller.PRODUCER)) {
                schemes.add(PRODUCER_SCHEME);
            }
            schemes.add(ADMIN_SCHEME);
        }
        // Each requirement is an alternative: any one of the schemes suffices.
        operation.setSecurity(schemes.stream()
                .map(scheme -> new SecurityRequirement().addList(scheme))
                .toList());
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        ApiResponse error = new ApiResponse().$ref(ERROR_REF);
        // The reader files a method's return type under "default"; it is the plain success answer.
        ApiResponse success = responses.get("default");
        if (success != null && success.get$ref() == null && responses.size() == 1) {
            responses.remove("default");
            responses.put(success.getContent() == null ? "204" : "200", success.description("OK"));
        }
        if (!schemes.isEmpty()) {
            responses.putIfAbsent("401", error);
        }
        responses.putIfAbsent("default", error);
        operation.setResponses(responses);
    }
}
