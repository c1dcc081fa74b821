package dev.relaybox.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.service.catalog.WebhookDefinitions;
import dev.relaybox.store.EventTypeStore.Defined;
import dev.relaybox.store.EventTypeStore.Definition;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.Store;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code relaybox event-types import openapi.yaml config.yml}: creates or revises the event types an OpenAPI 3.1
 * document's {@code webhooks} describe ({@link WebhookDefinitions}), all or none. Idempotent: a type whose schema is
 * its latest version's gets no new version, so importing Relaybox's own {@code /openapi.json} changes nothing. An
 * embedded database is written through the running Relaybox's PostgreSQL when one runs on the data directory.
 */
final class EventTypesCommand extends ConfiguredCommand<RelayboxConfiguration> {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    EventTypesCommand() {
        super(
                "event-types",
                "'event-types import DOCUMENT' creates or revises the event types an OpenAPI 3.1 document's webhooks "
                        + "describe (JSON or YAML)");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("import").help("what to do with the catalog");
        subparser.addArgument("document").help("the OpenAPI 3.1 document (JSON or YAML) to import");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        Path file = Path.of(namespace.getString("document"));
        // YAML is a superset of JSON: one reader for both.
        JsonNode document = YAML.readTree(Files.readString(file));
        List<Definition> definitions = WebhookDefinitions.read(document);

        try (CommandDatabase database = CommandDatabase.open(bootstrap, config, "event-types")) {
            Migrations.migrate(database.dataSource());
            EventCatalog catalog =
                    new EventCatalog(Store.configure(Jdbi.create(database.dataSource())), new EventSchemas());
            List<Defined> defined = catalog.defineAll(definitions);
            for (int i = 0; i < defined.size(); i++) {
                System.out.printf("%s: %s%n", definitions.get(i).name(), describe(defined.get(i)));
            }
        }
    }

    private static String describe(Defined defined) {
        return switch (defined.change()) {
            case CREATED -> "created, version 1";
            case NEW_VERSION -> "new version " + defined.version();
            case SAME_SCHEMA -> "unchanged schema, version " + defined.version();
        };
    }
}
