package dev.relaybox.activities.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.EventTypeStore.Defined;
import dev.relaybox.store.EventTypeStore.Definition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * Changes to the catalog, checked before anything is written: the name is one an event can have and is not
 * Relaybox's own, the schema compiles as draft 2020-12, and the example validates against it. The admin API, the
 * start-up seeds and {@code relaybox event-types import} all change the catalog through here.
 */
public final class EventCatalog {
    /** The names an outbox event type may have. */
    public static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,199}";

    private static final Pattern NAME_PATTERN = Pattern.compile(NAME);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Jdbi jdbi;
    private final EventSchemas schemas;

    public EventCatalog(Jdbi jdbi, EventSchemas schemas) {
        this.jdbi = jdbi;
        this.schemas = schemas;
    }

    /** Creates the type at version 1; false, changing nothing, when it exists. */
    public boolean create(Definition definition) throws InvalidEventTypeException {
        Definition checked = checked(definition);
        return jdbi.withExtension(EventTypeStore.class, store -> store.create(checked));
    }

    /** A new version when the schema differs from the latest; empty when there is no such type. */
    public Optional<Defined> revise(Definition definition) throws InvalidEventTypeException {
        Definition checked = checked(definition);
        return jdbi.withExtension(EventTypeStore.class, store -> store.revise(checked));
    }

    /**
     * Creates or revises each, in one transaction, after checking them all: one refused definition writes none. What a
     * seed list or an import does.
     */
    public List<Defined> defineAll(List<Definition> definitions) throws InvalidEventTypeException {
        List<Definition> checked = new ArrayList<>();
        for (Definition definition : definitions) {
            try {
                checked.add(checked(definition));
            } catch (InvalidEventTypeException e) {
                throw new InvalidEventTypeException(
                        e.error(), "event type " + definition.name() + ": " + e.getMessage());
            }
        }
        return jdbi.inTransaction(handle -> {
            EventTypeStore store = handle.attach(EventTypeStore.class);
            return checked.stream().map(store::define).toList();
        });
    }

    private Definition checked(Definition definition) throws InvalidEventTypeException {
        String name = definition.name();
        if (name == null || !NAME_PATTERN.matcher(name).matches()) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_EVENT_TYPE,
                    "name \"" + name + "\" must be letters, digits, '.', '_' or '-' (at most 200)");
        }
        if (JdbcOutbox.isReserved(name)) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_EVENT_TYPE,
                    "name \"" + name + "\" is reserved: " + JdbcOutbox.RESERVED_PREFIX
                            + "* events come only from Relaybox itself");
        }
        Schema schema = schemas.compile(parse(definition.schema(), InvalidEventTypeException.INVALID_SCHEMA));
        schemas.checkExample(schema, parse(definition.example(), InvalidEventTypeException.INVALID_EXAMPLE));
        return definition;
    }

    private static JsonNode parse(String json, String error) throws InvalidEventTypeException {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidEventTypeException(error, "not JSON: " + e.getOriginalMessage());
        }
    }
}
