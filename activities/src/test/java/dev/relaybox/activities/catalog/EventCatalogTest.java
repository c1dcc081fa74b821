package dev.relaybox.activities.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.catalog.PublishCheck.Outcome;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.EventTypeStore.Change;
import dev.relaybox.store.EventTypeStore.Definition;
import dev.relaybox.store.TestDatabase;
import java.time.Clock;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** The catalog against a real PostgreSQL: versions, refusals with reasons, and what publishing meets. */
class EventCatalogTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHIPPED = """
            {"type": "object", "required": ["orderId", "carrier"],
             "properties": {"orderId": {"type": "string"}, "carrier": {"type": "string"},
                            "items": {"type": "array", "items": {"type": "object",
                                      "properties": {"qty": {"type": "integer", "minimum": 1}}}}}}""";

    private final Jdbi jdbi = TestDatabase.fresh();
    private final EventSchemas schemas = new EventSchemas();
    private final EventCatalog catalog = new EventCatalog(jdbi, schemas);

    @Test
    void aChangedSchemaIsANewVersionAndTheSameSchemaIsNone() throws Exception {
        assertThat(catalog.create(definition("order.shipped", SHIPPED, "{\"orderId\": \"1\", \"carrier\": \"DHL\"}")))
                .isTrue();
        // The same schema, keys in another order and spaced otherwise: no new version.
        String reordered = """
                {"properties": {"items": {"items": {"properties": {"qty": {"minimum": 1, "type": "integer"}},
                                                    "type": "object"}, "type": "array"},
                                "carrier": {"type": "string"}, "orderId": {"type": "string"}},
                 "required": ["orderId", "carrier"], "type": "object"}""";
        assertThat(define(definition("order.shipped", reordered, null)).change())
                .isEqualTo(Change.SAME_SCHEMA);
        String looser = "{\"type\": \"object\", \"required\": [\"orderId\"]}";
        EventTypeStore.Defined second = define(definition("order.shipped", looser, null));

        assertThat(second).isEqualTo(new EventTypeStore.Defined(2, Change.NEW_VERSION));
        List<EventTypeStore.Version> versions =
                jdbi.withExtension(EventTypeStore.class, store -> store.versions("order.shipped"));
        assertThat(versions).extracting(EventTypeStore.Version::version).containsExactly(2, 1);
        assertThat(JSON.readTree(versions.get(1).schema())).isEqualTo(JSON.readTree(SHIPPED));
        assertThat(JSON.readTree(versions.get(1).example()).path("carrier").asText())
                .isEqualTo("DHL");
        assertThat(catalog.create(definition("order.shipped", SHIPPED, null))).isFalse();
    }

    @Test
    void aNewExampleForTheSameSchemaReplacesTheLatestVersionsExample() throws Exception {
        catalog.create(definition("order.shipped", SHIPPED, "{\"orderId\": \"1\", \"carrier\": \"DHL\"}"));

        EventTypeStore.Defined defined =
                define(definition("order.shipped", SHIPPED, "{\"orderId\": \"2\", \"carrier\": \"UPS\"}"));

        assertThat(defined.change()).isEqualTo(Change.SAME_SCHEMA);
        List<EventTypeStore.Version> versions =
                jdbi.withExtension(EventTypeStore.class, store -> store.versions("order.shipped"));
        assertThat(versions).hasSize(1);
        assertThat(JSON.readTree(versions.get(0).example()).path("carrier").asText())
                .isEqualTo("UPS");
    }

    @Test
    void revisingAnUnknownTypeChangesNothing() throws Exception {
        assertThat(catalog.revise(definition("order.unknown", SHIPPED, null))).isEmpty();
        assertThat(jdbi.withExtension(EventTypeStore.class, EventTypeStore::list))
                .isEmpty();
    }

    @Test
    void schemasThatDoNotCompileAreRefusedWithTheReasonAndNothingStored() {
        assertRefused("{\"type\": \"strin\"}", InvalidEventTypeException.INVALID_SCHEMA, "$.type");
        assertRefused("{\"minimum\": \"ten\"}", InvalidEventTypeException.INVALID_SCHEMA, "$.minimum");
        assertRefused("{\"pattern\": \"[\"}", InvalidEventTypeException.INVALID_SCHEMA, "$.pattern");
        assertRefused("{\"$ref\": \"#/$defs/missing\"}", InvalidEventTypeException.INVALID_SCHEMA, "/$defs/missing");
        assertRefused("[1]", InvalidEventTypeException.INVALID_SCHEMA, "JSON object");
        assertRefused("{\"type\": ", InvalidEventTypeException.INVALID_SCHEMA, "not JSON");
        assertRefused(
                "{\"$schema\": \"http://json-schema.org/draft-07/schema#\"}",
                InvalidEventTypeException.INVALID_SCHEMA,
                "draft 2020-12");
        // A misspelt keyword would check nothing, silently.
        assertRefused(
                "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\", \"minLenght\": 3}}}",
                InvalidEventTypeException.INVALID_SCHEMA,
                "\"minLenght\" is not a JSON Schema draft 2020-12 keyword");
        assertThat(jdbi.withExtension(EventTypeStore.class, EventTypeStore::list))
                .isEmpty();
    }

    @Test
    void anExtensionKeywordIsKeptAsAnAnnotation() throws Exception {
        define(definition("order.tagged", "{\"type\": \"object\", \"x-owner\": \"payments\"}", null));

        List<EventTypeStore.EventType> stored = jdbi.withExtension(EventTypeStore.class, EventTypeStore::list);
        assertThat(stored).extracting(EventTypeStore.EventType::name).containsExactly("order.tagged");
    }

    @Test
    void aRemoteReferenceIsRefusedWithoutBeingFetched() {
        try (TestReceiver receiver = new TestReceiver()) {
            String schema = "{\"$ref\": \"" + receiver.url("/schema.json") + "\"}";

            assertRefused(schema, InvalidEventTypeException.INVALID_SCHEMA, "self-contained");
            assertThat(receiver.received()).isEmpty();
        }
    }

    @Test
    void anExampleMustMatchItsSchemaAndANameMustBeAnEventTypes() {
        assertThatThrownBy(() -> catalog.create(definition("order.shipped", SHIPPED, "{\"orderId\": 7}")))
                .isInstanceOfSatisfying(InvalidEventTypeException.class, e -> {
                    assertThat(e.error()).isEqualTo(InvalidEventTypeException.INVALID_EXAMPLE);
                    assertThat(e.getMessage()).contains("$.orderId", "$: required property 'carrier'");
                });
        assertThatThrownBy(() -> catalog.create(definition("relaybox.dead_letter.created", SHIPPED, null)))
                .isInstanceOfSatisfying(
                        InvalidEventTypeException.class,
                        e -> assertThat(e.getMessage()).contains("reserved"));
        assertThatThrownBy(() -> catalog.create(definition("order shipped", SHIPPED, null)))
                .isInstanceOfSatisfying(
                        InvalidEventTypeException.class,
                        e -> assertThat(e.error()).isEqualTo(InvalidEventTypeException.INVALID_EVENT_TYPE));
    }

    @Test
    void publishingValidatesAgainstTheLatestVersionNamingEachFailingPath() throws Exception {
        catalog.create(definition("order.shipped", SHIPPED, null));
        PublishCheck check = new PublishCheck(jdbi, schemas, true, Clock.systemUTC());

        assertThat(check.check("order.shipped", json("{\"orderId\": \"1\", \"carrier\": \"DHL\"}")))
                .isEqualTo(new PublishCheck.Verdict(Outcome.VALID, null));
        PublishCheck.Verdict invalid =
                check.check("order.shipped", json("{\"orderId\": 1, \"items\": [{\"qty\": 1}, {\"qty\": 0}]}"));
        assertThat(invalid.outcome()).isEqualTo(Outcome.INVALID_PAYLOAD);
        assertThat(invalid.reason())
                .contains(
                        "event type order.shipped version 1",
                        "$.orderId: integer found, string expected",
                        "$: required property 'carrier' not found",
                        "$.items[1].qty: must have a minimum value of 1");

        define(definition("order.shipped", "{\"type\": \"object\"}", null));
        assertThat(check.check("order.shipped", json("{\"orderId\": 1}")).outcome())
                .isEqualTo(Outcome.VALID);
    }

    @Test
    void unknownTypesPassOnlyWhileAllowedAndRelayboxsOwnAlways() {
        PublishCheck allowing = new PublishCheck(jdbi, schemas, true, Clock.systemUTC());
        PublishCheck refusing = new PublishCheck(jdbi, schemas, false, Clock.systemUTC());

        assertThat(allowing.check("order.unknown", json("{}")).outcome()).isEqualTo(Outcome.UNCATALOGUED);
        PublishCheck.Verdict refused = refusing.check("order.unknown", json("{}"));
        assertThat(refused.refused()).isTrue();
        assertThat(refused.reason()).contains("order.unknown", "eventTypes.allowUnknown");
        assertThat(refusing.check("relaybox.dead_letter.created", json("{}")).outcome())
                .isEqualTo(Outcome.UNCATALOGUED);
    }

    @Test
    void aDeprecatedTypeStillPublishes() throws Exception {
        catalog.create(new Definition("order.old", "the old one", "{\"type\": \"object\"}", null, true));
        PublishCheck check = new PublishCheck(jdbi, schemas, false, Clock.systemUTC());

        PublishCheck.Verdict verdict = check.check("order.old", json("{}"));

        assertThat(verdict.outcome()).isEqualTo(Outcome.DEPRECATED);
        assertThat(verdict.refused()).isFalse();
    }

    private void assertRefused(String schema, String error, String reasonPart) {
        assertThatThrownBy(() -> catalog.create(definition("order.refused", schema, null)))
                .isInstanceOfSatisfying(InvalidEventTypeException.class, e -> {
                    assertThat(e.error()).isEqualTo(error);
                    assertThat(e.getMessage()).contains(reasonPart);
                    assertThat(e.getMessage()).as("a reason for people").doesNotContain("java.", "Exception");
                });
    }

    private EventTypeStore.Defined define(Definition definition) throws InvalidEventTypeException {
        return catalog.defineAll(List.of(definition)).get(0);
    }

    private static Definition definition(String name, String schema, String example) {
        return new Definition(name, null, schema, example, null);
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }
}
