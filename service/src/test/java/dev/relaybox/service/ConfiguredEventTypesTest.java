package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.service.config.EventTypeSeed;
import dev.relaybox.service.config.EventTypesFactory;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The start-up seeds of {@code eventTypes.catalog}, from the example docs/event-types.md shows, against a real
 * PostgreSQL: a restart changes nothing, a changed schema file is a new version, and a bad seed writes none.
 */
class ConfiguredEventTypesTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern YAML_BLOCK = Pattern.compile("(?s)```yaml\\n(.*?)```");

    private final Jdbi jdbi = TestDatabase.fresh();
    private final EventCatalog catalog = new EventCatalog(jdbi, new EventSchemas());

    @Test
    void theDocumentedSeedsAreWrittenOnceAndAChangedSchemaFileIsANewVersion() throws Exception {
        Path schemaFile = Files.createTempFile("order.refunded", ".yaml");
        Files.writeString(schemaFile, "type: object\nrequired: [orderId]\n");
        List<EventTypeSeed> seeds = documentedSeeds(schemaFile);

        ConfiguredEventTypes.seed(catalog, seeds);
        ConfiguredEventTypes.seed(catalog, seeds);

        assertThat(catalogue())
                .extracting(EventTypeStore.EventType::name, EventTypeStore.EventType::latestVersion)
                .containsExactly(tuple("order.refunded", 1), tuple("order.shipped", 1));
        Files.writeString(schemaFile, "type: object\nrequired: [orderId, amount]\n");
        ConfiguredEventTypes.seed(catalog, seeds);
        assertThat(catalogue())
                .extracting(EventTypeStore.EventType::latestVersion)
                .containsExactly(2, 1);
    }

    @Test
    void aSeedThatCannotBeUsedStopsStartUpNamingItAndWritesNone() throws Exception {
        List<EventTypeSeed> seeds = new ArrayList<>(documentedSeeds(Files.createTempFile("unused", ".yaml")));
        seeds.set(1, new EventTypeSeed("order.broken", null, YAML.readTree("type: strin"), null, null, null));

        assertThatThrownBy(() -> ConfiguredEventTypes.seed(catalog, seeds))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("event type order.broken")
                .hasMessageContaining("$.type");
        assertThat(catalogue()).isEmpty();
    }

    @Test
    void aSeedTakesOneOfSchemaOrSchemaFile() throws Exception {
        JsonNode schema = YAML.readTree("type: object");
        assertThat(new EventTypeSeed("a", null, schema, null, null, null).isOneSchema())
                .isTrue();
        assertThat(new EventTypeSeed("a", null, schema, "a.json", null, null).isOneSchema())
                .isFalse();
        assertThat(new EventTypeSeed("a", null, null, null, null, null).isOneSchema())
                .isFalse();
    }

    /** The eventTypes block of docs/event-types.md, its schemaFile pointed at {@code schemaFile}. */
    private static List<EventTypeSeed> documentedSeeds(Path schemaFile) throws Exception {
        Matcher blocks = YAML_BLOCK.matcher(Files.readString(Path.of("..", "docs", "event-types.md")));
        while (blocks.find()) {
            JsonNode block = YAML.readTree(blocks.group(1));
            if (block != null && block.has("eventTypes")) {
                EventTypesFactory factory = YAML.treeToValue(block.get("eventTypes"), EventTypesFactory.class);
                assertThat(factory.getCatalog()).allMatch(EventTypeSeed::isOneSchema);
                return factory.getCatalog().stream()
                        .map(seed -> seed.schemaFile() == null
                                ? seed
                                : new EventTypeSeed(
                                        seed.name(),
                                        seed.description(),
                                        null,
                                        schemaFile.toString(),
                                        seed.example(),
                                        seed.deprecated()))
                        .toList();
            }
        }
        throw new AssertionError("docs/event-types.md has no eventTypes example");
    }

    private List<EventTypeStore.EventType> catalogue() {
        return jdbi.withExtension(EventTypeStore.class, EventTypeStore::list);
    }
}
