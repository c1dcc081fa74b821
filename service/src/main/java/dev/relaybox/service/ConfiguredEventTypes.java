package dev.relaybox.service;

import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.InvalidEventTypeException;
import dev.relaybox.service.config.EventTypeSeed;
import dev.relaybox.store.EventTypeStore.Change;
import dev.relaybox.store.EventTypeStore.Defined;
import dev.relaybox.store.EventTypeStore.Definition;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The event types config.yml declares, written at start-up; a bad one stops start-up, writing none, with its name and why. */
final class ConfiguredEventTypes {
    private static final Logger LOG = LoggerFactory.getLogger(RelayboxApplication.class);

    private ConfiguredEventTypes() {}

    /** Creates or revises each; the same schema as the latest version makes no new one, so restarts change nothing. */
    static void seed(EventCatalog catalog, List<EventTypeSeed> seeds) {
        List<Definition> definitions =
                seeds.stream().map(EventTypeSeed::definition).toList();
        List<Defined> defined;
        try {
            defined = catalog.defineAll(definitions);
        } catch (InvalidEventTypeException e) {
            throw new IllegalStateException("eventTypes.catalog in config: " + e.getMessage());
        }
        for (int i = 0; i < defined.size(); i++) {
            if (defined.get(i).change() != Change.SAME_SCHEMA) {
                LOG.info(
                        "event type {} from config: version {} ({})",
                        definitions.get(i).name(),
                        defined.get(i).version(),
                        defined.get(i).change());
            }
        }
    }
}
