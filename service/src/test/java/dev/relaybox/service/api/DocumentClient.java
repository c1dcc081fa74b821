package dev.relaybox.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Calls operations the way a client generated from the document does: it knows nothing but the parsed document,
 * the base URL and a token per security scheme. Paths, parameters, request bodies (the documented example unless
 * one is given) and the Authorization header all come from the document; a parameter it does not declare is a
 * test failure, not a silent extra.
 */
final class DocumentClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpenAPI document;
    private final String baseUrl;
    private final Map<String, String> tokensByScheme;
    private final HttpClient http = HttpClient.newHttpClient();

    DocumentClient(OpenAPI document, String baseUrl, Map<String, String> tokensByScheme) {
        this.document = document;
        this.baseUrl = baseUrl;
        this.tokensByScheme = Map.copyOf(tokensByScheme);
    }

    record Answer(int status, JsonNode body, Operation operation) {
        /** The status is one the document lists for this operation, by number. */
        void assertDocumentedStatus(int expected) {
            assertThat(status).isEqualTo(expected);
            assertThat(operation.getResponses()).containsKey(Integer.toString(expected));
        }
    }

    record Located(String method, String path, Operation operation) {}

    Located locate(String operationId) {
        for (Map.Entry<String, PathItem> path : document.getPaths().entrySet()) {
            for (Map.Entry<PathItem.HttpMethod, Operation> op :
                    path.getValue().readOperationsMap().entrySet()) {
                if (operationId.equals(op.getValue().getOperationId())) {
                    return new Located(op.getKey().name(), path.getKey(), op.getValue());
                }
            }
        }
        throw new AssertionError("no operation " + operationId + " in the document");
    }

    /** Calls with the document's example body (if the operation takes one) and this client's tokens. */
    Answer call(String operationId, Map<String, String> parameters) {
        return call(operationId, parameters, null, true);
    }

    Answer call(String operationId, Map<String, String> parameters, JsonNode body, boolean authenticate) {
        Located located = locate(operationId);
        Operation operation = located.operation();
        Map<String, String> unused = new HashMap<>(parameters);
        String path = located.path();
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        HttpRequest.Builder request = HttpRequest.newBuilder();
        for (Parameter parameter :
                operation.getParameters() == null ? List.<Parameter>of() : operation.getParameters()) {
            String value = unused.remove(parameter.getName());
            if (value == null) {
                assertThat(parameter.getRequired())
                        .as("required parameter " + parameter.getName())
                        .isNotEqualTo(true);
                continue;
            }
            switch (parameter.getIn()) {
                case "path" -> path = path.replace("{" + parameter.getName() + "}", encode(value));
                case "query" -> query.add(encode(parameter.getName()) + "=" + encode(value));
                case "header" -> request.header(parameter.getName(), value);
                default -> throw new AssertionError("unexpected parameter location " + parameter.getIn());
            }
        }
        assertThat(unused)
                .as("parameters the document does not declare for " + operationId)
                .isEmpty();
        if (authenticate && operation.getSecurity() != null) {
            for (SecurityRequirement requirement : operation.getSecurity()) {
                String scheme = requirement.keySet().iterator().next();
                if (tokensByScheme.containsKey(scheme)) {
                    assertThat(document.getComponents()
                                    .getSecuritySchemes()
                                    .get(scheme)
                                    .getScheme())
                            .isEqualTo("bearer");
                    request.header("Authorization", "Bearer " + tokensByScheme.get(scheme));
                    break;
                }
            }
        }
        HttpRequest.BodyPublisher publisher = HttpRequest.BodyPublishers.noBody();
        if (operation.getRequestBody() != null) {
            Map.Entry<String, MediaType> content = operation
                    .getRequestBody()
                    .getContent()
                    .entrySet()
                    .iterator()
                    .next();
            JsonNode sent = body != null ? body : example(content.getValue());
            request.header("Content-Type", content.getKey());
            publisher = HttpRequest.BodyPublishers.ofString(sent.toString());
        }
        request.uri(URI.create(baseUrl + path + query)).method(located.method(), publisher);
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String text = response.body();
            return new Answer(response.statusCode(), text.isBlank() ? null : JSON.readTree(text), operation);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The first documented example of a request body, as JSON. */
    static JsonNode example(MediaType content) {
        assertThat(content.getExamples()).as("documented examples").isNotEmpty();
        Example example = content.getExamples().values().iterator().next();
        Object value = example.getValue();
        try {
            return value instanceof String text ? JSON.readTree(text) : JSON.valueToTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
