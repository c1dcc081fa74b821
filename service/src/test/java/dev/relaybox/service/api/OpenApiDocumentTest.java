package dev.relaybox.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.admin.ListParams;
import dev.relaybox.service.auth.Caller;
import dev.relaybox.workflows.inbound.InboxState;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import jakarta.annotation.security.RolesAllowed;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.glassfish.jersey.server.ExtendedResourceContext;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** /openapi.json from the running application, read by a real OpenAPI parser and used as a generated client would. */
@ExtendWith(DropwizardExtensionsSupport.class)
class OpenApiDocumentTest {
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    static final TestReceiver RECEIVER = new TestReceiver();
    static OpenAPI document;

    @BeforeAll
    static void readTheDocument() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(API.url("/openapi.json")))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(response.body(), null, null);
        assertThat(parsed.getMessages()).as("parser messages").isEmpty();
        document = parsed.getOpenAPI();
        assertThat(document).isNotNull();
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    /** A route as Jersey's runtime resource model has it. */
    record Route(String method, String path, Method javaMethod) {}

    @Test
    void everyRouteJerseyServesIsDocumentedWithItsBearerScheme() {
        List<Route> routes = jerseyRoutes();
        assertThat(routes).hasSizeGreaterThan(15);

        for (Route route : routes) {
            PathItem item = document.getPaths().get(route.path());
            assertThat(item).as("path %s in the document", route.path()).isNotNull();
            Operation operation = item.readOperationsMap().get(PathItem.HttpMethod.valueOf(route.method()));
            assertThat(operation)
                    .as("%s %s in the document", route.method(), route.path())
                    .isNotNull();
            assertThat(operation.getSummary())
                    .as("summary of %s %s", route.method(), route.path())
                    .isNotBlank();
            assertThat(operation.getResponses()).containsKey("default");

            Set<String> schemes = operation.getSecurity() == null
                    ? Set.of()
                    : operation.getSecurity().stream()
                            .flatMap(requirement -> requirement.keySet().stream())
                            .collect(Collectors.toSet());
            Set<String> roles = rolesAllowed(route.javaMethod());
            if (roles.contains(Caller.PORTAL)) {
                assertThat(schemes).as("%s %s", route.method(), route.path()).containsExactly("portal");
            } else if (roles.contains(Caller.PRODUCER)) {
                assertThat(schemes)
                        .as("%s %s", route.method(), route.path())
                        .containsExactlyInAnyOrder("producer", "admin");
            } else if (roles.contains(Caller.ADMIN)) {
                assertThat(schemes).as("%s %s", route.method(), route.path()).containsExactly("admin");
            } else {
                assertThat(schemes)
                        .as("%s %s is open", route.method(), route.path())
                        .isEmpty();
            }
            if (!roles.isEmpty()) {
                assertThat(operation.getResponses()).containsKey("401");
            }
        }
    }

    @Test
    void everySuccessfulJsonAnswerHasATypeAGeneratorCanName() {
        for (Map.Entry<String, PathItem> path : document.getPaths().entrySet()) {
            for (Map.Entry<PathItem.HttpMethod, Operation> operation :
                    path.getValue().readOperationsMap().entrySet()) {
                operation.getValue().getResponses().forEach((status, response) -> {
                    if (!status.startsWith("2") || status.equals("204")) {
                        return;
                    }
                    assertThat(response.getContent())
                            .as("%s %s says what it answers with %s", operation.getKey(), path.getKey(), status)
                            .isNotEmpty();
                    if (response.getContent().containsKey("application/json")) {
                        assertThat(response.getContent().get("application/json").getSchema())
                                .as("%s %s answers %s with a schema", operation.getKey(), path.getKey(), status)
                                .isNotNull();
                    }
                });
            }
        }
    }

    @Test
    void eachListsStatusFilterNamesExactlyTheStatusesItsRowsHave() {
        Map<String, List<String>> vocabularies = Map.of(
                "/admin/deliveries", ListParams.vocabulary(DeliveryStatus.class),
                "/portal/api/deliveries", ListParams.vocabulary(DeliveryStatus.class),
                "/admin/outbox", ListParams.vocabulary(OutboxStatus.class),
                "/admin/inbox", ListParams.vocabulary(InboxState.class));
        vocabularies.forEach((path, statuses) -> {
            Parameter status = document.getPaths().get(path).getGet().getParameters().stream()
                    .filter(parameter -> parameter.getName().equals("status"))
                    .findFirst()
                    .orElseThrow();
            assertThat(status.getSchema().getEnum()).as(path).isEqualTo(statuses);
        });
    }

    /**
     * The HTTP server refuses a path with a control character before any route sees it: a client generator or a
     * fuzzer that believes any string fits a path segment would send requests the document calls valid.
     */
    @Test
    void everyTextPathParameterSaysWhatItMayHold() {
        List<String> unbounded = new ArrayList<>();
        document.getPaths()
                .forEach((path, item) -> item.readOperations().forEach(operation -> {
                    if (operation.getParameters() == null) {
                        return;
                    }
                    operation.getParameters().stream()
                            .filter(parameter -> "path".equals(parameter.getIn()))
                            .filter(parameter -> parameter.getSchema().getFormat() == null)
                            .filter(parameter -> parameter.getSchema().getPattern() == null)
                            .forEach(parameter -> unbounded.add(path + " " + parameter.getName()));
                }));

        assertThat(unbounded).isEmpty();
    }

    /** What a request may hold, the service refuses nothing else for its shape: an empty text, an unknown source. */
    @Test
    void whatTheServiceRefusesAsEmptyOrUnknownTheDocumentForbids() {
        assertThat(property("OutboxEventRequest", "aggregateId").getMinLength()).isEqualTo(1);
        assertThat(property("DiscardRequest", "reason").getMinLength()).isEqualTo(1);
        assertThat(property("RecoverRequest", "since").getFormat()).isEqualTo("date-time");
        assertThat(queryParameter("/admin/story", "q").getSchema().getPattern())
                .as("something besides the spaces and control characters it is trimmed of")
                .isEqualTo("^[^\\x00]*[^\\x00-\\x20][^\\x00]*$");
        assertThat(queryParameter("/admin/deliveries", "aggregate").getSchema().getPattern())
                .isEqualTo("^([^:\\x00]+:[^\\x00]+)?$");
        assertThat(queryParameter("/admin/deliveries", "eventType").getSchema().getPattern())
                .isEqualTo("^[^\\x00]*$");
        assertThat(queryParameter("/admin/dead-letters", "source").getSchema().getEnum())
                .containsExactly("outbox", "inbox");
    }

    private Schema<?> property(String schema, String name) {
        Map<String, Schema> properties =
                document.getComponents().getSchemas().get(schema).getProperties();
        return properties.get(name);
    }

    private Parameter queryParameter(String path, String name) {
        return document.getPaths().get(path).getGet().getParameters().stream()
                .filter(parameter -> parameter.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aFieldThatCanBeNullSaysSoAndOneThatCannotDoesNot() {
        Map<String, Schema> delivery =
                document.getComponents().getSchemas().get("Delivery").getProperties();
        assertThat(delivery.get("nextAttemptAt").getTypes()).containsExactlyInAnyOrder("string", "null");
        assertThat(delivery.get("lastStatus").getTypes()).containsExactlyInAnyOrder("integer", "null");
        assertThat(delivery.get("attempts").getTypes())
                .as("an int is never null")
                .containsExactly("integer");
        Map<String, Schema> page =
                document.getComponents().getSchemas().get("PageDelivery").getProperties();
        assertThat(page.get("nextCursor").getTypes()).containsExactlyInAnyOrder("string", "null");
        Map<String, Schema> detail =
                document.getComponents().getSchemas().get("DeliveryDetail").getProperties();
        assertThat(detail.get("delivery").getAnyOf())
                .as("a nullable reference is one of the referenced schema or null")
                .hasSize(2);
        Schema request = document.getComponents().getSchemas().get("OutboxEventRequest");
        assertThat(request.getRequired()).contains("eventType");
        assertThat(((Schema<?>) request.getProperties().get("eventType")).getTypes())
                .as("a required field is never null")
                .containsExactly("string");
    }

    @Test
    void documentCarriesTheErrorShapeEveryBearerSchemeAndExamples() {
        Map<String, SecurityScheme> schemes = document.getComponents().getSecuritySchemes();
        assertThat(schemes).containsOnlyKeys("admin", "producer", "portal");
        schemes.values().forEach(scheme -> {
            assertThat(scheme.getType()).isEqualTo(SecurityScheme.Type.HTTP);
            assertThat(scheme.getScheme()).isEqualTo("bearer");
        });
        Schema<?> error = document.getComponents().getSchemas().get("ApiError");
        assertThat(error.getProperties()).containsOnlyKeys("error", "reason");
        assertThat(document.getComponents()
                        .getResponses()
                        .get("Error")
                        .getContent()
                        .get("application/json")
                        .getExamples())
                .isNotEmpty();
        assertThat(document.getPaths()
                        .get("/outbox")
                        .getPost()
                        .getRequestBody()
                        .getContent()
                        .get("application/json")
                        .getExamples())
                .isNotEmpty();
    }

    @Test
    void generatedClientCallsRoutesAndGetsTheDocumentedAnswers() {
        DocumentClient client = new DocumentClient(
                document, API.url(""), Map.of("producer", TestApp.PRODUCER_TOKEN, "admin", TestApp.ADMIN_TOKEN));
        DocumentClient producerOnly =
                new DocumentClient(document, API.url(""), Map.of("producer", TestApp.PRODUCER_TOKEN));

        // The documented example of an endpoint, pointed at a local receiver.
        ObjectNode endpoint = (ObjectNode) DocumentClient.example(client.locate("createEndpoint")
                .operation()
                .getRequestBody()
                .getContent()
                .get("application/json"));
        endpoint.put("url", RECEIVER.url("/hooks"));
        DocumentClient.Answer created = client.call("createEndpoint", Map.of(), endpoint, true);
        created.assertDocumentedStatus(201);
        assertHasSchemaProperties(created.body(), "EndpointView");
        String endpointId = created.body().path("id").asText();
        client.call("getEndpoint", Map.of("id", endpointId)).assertDocumentedStatus(200);

        // The documented example event, twice under one Idempotency-Key: stored, then recognised.
        DocumentClient.Answer enqueued = producerOnly.call("enqueueEvent", Map.of("Idempotency-Key", "openapi-1"));
        enqueued.assertDocumentedStatus(202);
        assertHasSchemaProperties(enqueued.body(), "Accepted");
        DocumentClient.Answer again = producerOnly.call("enqueueEvent", Map.of("Idempotency-Key", "openapi-1"));
        again.assertDocumentedStatus(200);
        assertThat(again.body().path("id").asText())
                .isEqualTo(enqueued.body().path("id").asText());

        client.call("listDeadLetters", Map.of("limit", "5", "open", "true")).assertDocumentedStatus(200);
        client.call("overview", Map.of()).assertDocumentedStatus(200);

        // Errors: the statuses the document names, in the one error shape.
        DocumentClient.Answer anonymous = client.call("listDeliveries", Map.of(), null, false);
        anonymous.assertDocumentedStatus(401);
        assertHasSchemaProperties(anonymous.body(), "ApiError");
        // A client holding only a producer token has no credential for the admin scheme.
        DocumentClient.Answer producerOnAdmin = producerOnly.call("overview", Map.of());
        producerOnAdmin.assertDocumentedStatus(401);
        assertHasSchemaProperties(producerOnAdmin.body(), "ApiError");
        DocumentClient.Answer missing =
                client.call("getDelivery", Map.of("id", UUID.randomUUID().toString()));
        assertThat(missing.status()).isEqualTo(404);
        assertHasSchemaProperties(missing.body(), "ApiError");
        ObjectNode unknownField = ((ObjectNode) DocumentClient.example(client.locate("enqueueEvent")
                        .operation()
                        .getRequestBody()
                        .getContent()
                        .get("application/json")))
                .put("extra", 1);
        DocumentClient.Answer refused = producerOnly.call("enqueueEvent", Map.of(), unknownField, true);
        refused.assertDocumentedStatus(400);
        assertHasSchemaProperties(refused.body(), "ApiError");
    }

    /** Every property the named component schema lists is in the answer. */
    private static void assertHasSchemaProperties(JsonNode body, String schemaName) {
        Schema<?> schema = document.getComponents().getSchemas().get(schemaName);
        assertThat(schema).as("schema " + schemaName).isNotNull();
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields)
                .as("fields of a " + schemaName)
                .containsAll(schema.getProperties().keySet());
    }

    /** The routes Jersey serves, walked from its runtime resource model (not from a list kept by hand). */
    private static List<Route> jerseyRoutes() {
        ServletContainer jersey = (ServletContainer) APP.getEnvironment().getJerseyServletContainer();
        List<Resource> roots = jersey.getApplicationHandler()
                .getInjectionManager()
                .getInstance(ExtendedResourceContext.class)
                .getResourceModel()
                .getRootResources();
        List<Route> routes = new ArrayList<>();
        roots.forEach(root -> walk(root, "", routes));
        return routes;
    }

    private static void walk(Resource resource, String parent, List<Route> routes) {
        if (resource.isExtended()) {
            return; // Jersey's own additions, such as application.wadl
        }
        // A template's regular expression ({id: [0-9a-f-]+}) is not part of the documented path.
        String path = OpenApiDocument.join(parent, resource.getPath());
        for (ResourceMethod method : resource.getResourceMethods()) {
            if (!method.isExtended()) {
                routes.add(new Route(
                        method.getHttpMethod(), path, method.getInvocable().getDefinitionMethod()));
            }
        }
        resource.getChildResources().forEach(child -> walk(child, path, routes));
    }

    private static Set<String> rolesAllowed(Method method) {
        RolesAllowed roles = method.isAnnotationPresent(RolesAllowed.class)
                ? method.getAnnotation(RolesAllowed.class)
                : method.getDeclaringClass().getAnnotation(RolesAllowed.class);
        return roles == null ? Set.of() : Set.of(roles.value());
    }
}
