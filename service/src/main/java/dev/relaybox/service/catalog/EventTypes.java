package dev.relaybox.service.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.InvalidEventTypeException;
import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.EventTypeStore.Definition;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * The event-type catalog as a use case: list it, read one type with its versions (in one transaction), create,
 * revise, deprecate. A change is checked by {@link EventCatalog} before anything is written; a refusal answers 422
 * with its code and reason, an unknown type 404. The admin routes and the portal's list call this.
 */
public final class EventTypes {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Jdbi jdbi;
    private final EventCatalog catalog;

    public EventTypes(Jdbi jdbi, EventCatalog catalog) {
        this.jdbi = jdbi;
        this.catalog = catalog;
    }

    public record EventTypeView(
            String name,
            String description,
            boolean deprecated,
            int latestVersion,
            Instant createdAt,
            Instant updatedAt) {
        static EventTypeView of(EventTypeStore.EventType type) {
            return new EventTypeView(
                    type.name(),
                    type.description(),
                    type.deprecated(),
                    type.latestVersion(),
                    type.createdAt(),
                    type.updatedAt());
        }
    }

    public record VersionView(int version, JsonNode schema, JsonNode example, Instant createdAt) {
        static VersionView of(EventTypeStore.Version version) {
            return new VersionView(
                    version.version(), json(version.schema()), json(version.example()), version.createdAt());
        }
    }

    /** A type with every version, newest first. */
    public record EventTypeDetail(
            String name,
            String description,
            boolean deprecated,
            int latestVersion,
            Instant createdAt,
            Instant updatedAt,
            List<VersionView> versions) {}

    /** The whole catalog, by name. */
    public List<EventTypeView> list() {
        return jdbi.withExtension(EventTypeStore.class, EventTypeStore::list).stream()
                .map(EventTypeView::of)
                .toList();
    }

    /** The types an endpoint may newly subscribe to: the catalog without its deprecated types. */
    public List<EventTypeView> subscribable() {
        return list().stream().filter(type -> !type.deprecated()).toList();
    }

    public EventTypeDetail get(String name) {
        return jdbi.inTransaction(h -> {
            EventTypeStore store = h.attach(EventTypeStore.class);
            EventTypeStore.EventType type = store.find(name).orElseThrow(() -> notFound(name));
            return new EventTypeDetail(
                    type.name(),
                    type.description(),
                    type.deprecated(),
                    type.latestVersion(),
                    type.createdAt(),
                    type.updatedAt(),
                    store.versions(name).stream().map(VersionView::of).toList());
        });
    }

    /** Adds the type at version 1; 409 when it exists. */
    public EventTypeDetail create(Definition definition) {
        if (!checked(() -> catalog.create(definition))) {
            throw ApiException.conflict(
                    "event_type_exists",
                    "event type " + definition.name() + " exists; PUT /admin/event-types/" + definition.name()
                            + " revises it");
        }
        return get(definition.name());
    }

    /** A schema other than the latest version's becomes a new version. */
    public EventTypeDetail revise(Definition definition) {
        if (checked(() -> catalog.revise(definition)).isEmpty()) {
            throw notFound(definition.name());
        }
        return get(definition.name());
    }

    public EventTypeDetail setDeprecated(String name, boolean deprecated) {
        if (!jdbi.withExtension(EventTypeStore.class, store -> store.setDeprecated(name, deprecated))) {
            throw notFound(name);
        }
        return get(name);
    }

    /** A catalog change that may be refused: the refusal answers 422 with its code and reason. */
    private interface CatalogChange<T> {
        T apply() throws InvalidEventTypeException;
    }

    private static <T> T checked(CatalogChange<T> change) {
        try {
            return change.apply();
        } catch (InvalidEventTypeException e) {
            throw new ApiException(422, e.error(), e.getMessage());
        }
    }

    private static ApiException notFound(String name) {
        return ApiException.notFound("event_type_not_found", "no event type " + name + " in the catalog");
    }

    private static JsonNode json(String text) {
        try {
            return text == null ? null : JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
