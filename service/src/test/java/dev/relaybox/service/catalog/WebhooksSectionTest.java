package dev.relaybox.service.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.CommandLine;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ScratchDirectories;
import dev.relaybox.service.TestApp;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.Store;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code webhooks} section of /openapi.json as receivers read it: parsed by swagger-parser, each envelope schema
 * compiled by the validator from the document itself, a delivered body valid against it; and the document imported by
 * {@code relaybox event-types import} into a fresh database gives the same catalog, twice over without a new version.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WebhooksSectionTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String DOCUMENT_URI = "https://relaybox.test/openapi.json";
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);

    /** Shared parts under $defs, referred to from the schema: anchored in the document, detached on import. */
    static final Map<String, Object> PACKED = Map.of(
            "type", "object",
            "required", List.of("orderId", "items"),
            "properties",
                    Map.of(
                            "orderId", Map.of("type", "string"),
                            "items", Map.of("type", "array", "items", Map.of("$ref", "#/$defs/item"))),
            "$defs",
                    Map.of(
                            "item",
                            Map.of(
                                    "type", "object",
                                    "required", List.of("sku"),
                                    "properties", Map.of("sku", Map.of("type", "string")))));

    @BeforeAll
    static void catalog() {
        assertThat(API.admin(
                                "POST",
                                "/admin/endpoints",
                                Map.of("name", "receiver", "url", RECEIVER.url("/hooks"), "eventTypes", List.of("*")))
                        .status())
                .isEqualTo(201);
        create(Map.of(
                "name",
                "order.packed",
                "description",
                "An order was packed",
                "schema",
                PACKED,
                "example",
                Map.of("orderId", "42", "items", List.of(Map.of("sku", "A-1")))));
        create(Map.of("name", "order.archived", "schema", Map.of("type", "object")));
        API.admin("POST", "/admin/event-types/order.archived/deprecate", Map.of());
        API.admin(
                "PUT",
                "/admin/event-types/order.archived",
                Map.of("schema", Map.of("type", "object", "minProperties", 1)));
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void everyCatalogTypeIsAWebhookWithTheSignatureHeadersAndItsEnvelope() throws Exception {
        String text = document();
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(text, null, null);
        assertThat(parsed.getMessages()).as("parser messages").isEmpty();
        OpenAPI document = parsed.getOpenAPI();
        assertThat(document.getOpenapi()).startsWith("3.1");

        List<String> catalog = API.adminGet("/admin/event-types").findValuesAsText("name");
        assertThat(document.getWebhooks()).containsOnlyKeys(catalog);
        for (String type : catalog) {
            Operation post = document.getWebhooks().get(type).getPost();
            assertThat(post.getParameters())
                    .extracting(Parameter::getName)
                    .containsExactly("webhook-id", "webhook-timestamp", "webhook-signature");
            assertThat(post.getParameters()).allMatch(p -> p.getIn().equals("header") && p.getRequired());
            assertThat(post.getRequestBody().getContent()).containsKey("application/json");
        }
        assertThat(document.getWebhooks().get("order.archived").getPost().getDeprecated())
                .isTrue();
        assertThat(document.getWebhooks().get("order.packed").getPost().getDescription())
                .isEqualTo("An order was packed");
        assertThat(document.getWebhooks().values())
                .allMatch(item -> item.readOperations().size() == 1);
    }

    @Test
    void eachEnvelopeSchemaCompilesFromTheDocumentAndADeliveredBodyMatchesIt() throws Exception {
        String text = document();
        JsonNode webhooks = JSON.readTree(text).path("webhooks");
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12, builder -> builder.schemas(Map.of(DOCUMENT_URI, text)));
        for (Map.Entry<String, JsonNode> webhook : webhooks.properties()) {
            Schema envelope = registry.getSchema(
                    SchemaLocation.of(DOCUMENT_URI + "#" + CatalogWebhooks.envelopeAt(webhook.getKey())));
            envelope.initializeValidators();
            JsonNode example = webhook.getValue().at("/post/requestBody/content/application~1json/example");
            if (!example.isMissingNode()) {
                assertThat(envelope.validate(example))
                        .as(webhook.getKey() + " example")
                        .isEmpty();
            }
        }

        Api.Answer published = API.producer(
                "POST",
                "/outbox",
                Map.of(
                        "eventType",
                        "order.packed",
                        "aggregateType",
                        "order",
                        "aggregateId",
                        "7",
                        "payload",
                        Map.of("orderId", "7", "items", List.of(Map.of("sku", "B-2")))));
        assertThat(published.status()).isEqualTo(202);
        TestReceiver.Received delivered = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> RECEIVER.received("/hooks").stream()
                                .filter(r -> published.text("id").equals(r.header("webhook-id")))
                                .findFirst()
                                .orElse(null),
                        Objects::nonNull);
        Schema packed =
                registry.getSchema(SchemaLocation.of(DOCUMENT_URI + "#" + CatalogWebhooks.envelopeAt("order.packed")));
        assertThat(packed.validate(JSON.readTree(delivered.body()))).isEmpty();
        assertThat(packed.validate(JSON.readTree("{\"type\": \"order.packed\", \"timestamp\": \"x\", "
                        + "\"data\": {\"orderId\": \"7\", \"items\": [{}]}}")))
                .isNotEmpty();
    }

    @Test
    void aTypeAddedToTheCatalogIsInTheNextDocument() throws Exception {
        create(Map.of("name", "order.weighed", "schema", Map.of("type", "object")));

        assertThat(JSON.readTree(document()).path("webhooks").has("order.weighed"))
                .isTrue();
    }

    @Test
    void importingTheDocumentIntoAFreshDatabaseGivesTheSameCatalogAndAgainNoNewVersion() throws Exception {
        Path exported = Files.createTempFile("relaybox-openapi", ".json");
        Files.writeString(exported, document());
        List<EventTypeStore.Current> original =
                Store.configure(API.jdbi()).withExtension(EventTypeStore.class, EventTypeStore::current);
        Path data = ScratchDirectories.create("relaybox-import");

        String first = runImport(data, exported);
        String second = runImport(data, exported);

        assertThat(first).contains("order.packed: created, version 1");
        assertThat(second).contains("order.packed: unchanged schema, version 1");
        List<EventTypeStore.Current> imported = importedCatalog(data);
        assertThat(imported)
                .extracting(EventTypeStore.Current::name)
                .containsExactlyElementsOf(
                        original.stream().map(EventTypeStore.Current::name).toList());
        for (int i = 0; i < original.size(); i++) {
            EventTypeStore.Current was = original.get(i);
            EventTypeStore.Current is = imported.get(i);
            assertThat(JSON.readTree(is.schema())).as(was.name()).isEqualTo(JSON.readTree(was.schema()));
            assertThat(is.example() == null ? null : JSON.readTree(is.example()))
                    .isEqualTo(was.example() == null ? null : JSON.readTree(was.example()));
            assertThat(is.description()).isEqualTo(was.description());
            assertThat(is.deprecated()).isEqualTo(was.deprecated());
            assertThat(is.version()).isEqualTo(1);
        }
    }

    private static void create(Map<String, Object> type) {
        assertThat(API.admin("POST", "/admin/event-types", type).status()).isEqualTo(201);
    }

    private static String document() {
        return API.request("/openapi.json", null).get(String.class);
    }

    private static String runImport(Path data, Path document) throws Exception {
        return CommandLine.run(data, Map.of(), "event-types", "import", document.toString());
    }

    private static List<EventTypeStore.Current> importedCatalog(Path data) throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .start()) {
            return Store.configure(Jdbi.create(postgres.getPostgresDatabase()))
                    .withExtension(EventTypeStore.class, EventTypeStore::current);
        }
    }
}
