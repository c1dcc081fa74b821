package dev.relaybox.activities.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import com.networknt.schema.path.PathType;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The catalog's JSON Schemas (draft 2020-12, networknt json-schema-validator): compiling one a person wrote, and
 * validating payloads against the compiled schema of a type's version, compiled once and cached (a version never
 * changes its schema). A schema is self-contained: remote references are never fetched, so a schema cannot make
 * Relaybox call out. {@code format} is asserted ({@code "format": "email"} refuses what is not one), as producers
 * mean it, rather than being the annotation the specification makes it by default.
 */
public final class EventSchemas {
    public static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CACHED = 1000;

    /**
     * Draft 2020-12, where a keyword it does not know is a mistake to name ({@code "minLenght"} would otherwise check
     * nothing, silently), except an {@code x-} extension, which is kept as an annotation.
     */
    private static final Dialect KNOWN_KEYWORDS_ONLY = Dialect.builder(Dialects.getDraft202012())
            .unknownKeywordFactory((keyword, context) -> {
                if (keyword.startsWith("x-")) {
                    return new AnnotationKeyword(keyword);
                }
                throw new UnknownKeyword("\"" + keyword + "\" is not a JSON Schema draft 2020-12 keyword"
                        + " (an extension of your own is named x-...)");
            })
            .build();

    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(
            KNOWN_KEYWORDS_ONLY,
            builder -> builder.schemaLoader(loader -> loader.fetchRemoteResources(false))
                    .schemaRegistryConfig(SchemaRegistryConfig.builder()
                            .pathType(PathType.JSON_PATH)
                            .formatAssertionsEnabled(true)
                            .build()));
    // The meta-schema ships inside the validator's jar: nothing is fetched.
    private final Schema metaSchema = registry.getSchema(SchemaLocation.of(DIALECT));

    private record Key(String eventType, int version) {}

    private final Map<Key, Schema> compiled = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Schema> eldest) {
            return size() > CACHED;
        }
    });

    /** The schema, compiled; or why it is not a draft 2020-12 schema Relaybox can use. */
    public Schema compile(JsonNode schema) throws InvalidEventTypeException {
        if (schema == null || !schema.isObject()) {
            throw new InvalidEventTypeException(InvalidEventTypeException.INVALID_SCHEMA, "a schema is a JSON object");
        }
        JsonNode declared = schema.get("$schema");
        if (declared != null && !DIALECT.equals(declared.asText())) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_SCHEMA,
                    "$schema is " + declared + ": the catalog takes JSON Schema draft 2020-12 (" + DIALECT + ")");
        }
        List<Violation> wrong = violations(metaSchema, schema);
        if (!wrong.isEmpty()) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_SCHEMA,
                    "not a valid JSON Schema (draft 2020-12): " + Violation.describe(wrong));
        }
        try {
            Schema built = registry.getSchema(schema);
            // Every keyword and reference resolved now, not at the first payload.
            built.initializeValidators();
            return built;
        } catch (RuntimeException e) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_SCHEMA, "cannot be compiled: " + why(e));
        }
    }

    /** The example, checked against the schema it illustrates; null passes (no example). */
    public void checkExample(Schema schema, JsonNode example) throws InvalidEventTypeException {
        if (example == null || example.isNull()) {
            return;
        }
        List<Violation> wrong = violations(schema, example);
        if (!wrong.isEmpty()) {
            throw new InvalidEventTypeException(
                    InvalidEventTypeException.INVALID_EXAMPLE,
                    "the example does not match the schema: " + Violation.describe(wrong));
        }
    }

    /**
     * What in {@code payload} breaks version {@code version} of {@code eventType}; {@code schema} gives the stored
     * schema text when that version is not compiled yet. Empty when it validates.
     */
    public List<Violation> violations(String eventType, int version, Supplier<String> schema, JsonNode payload) {
        return violations(compiled(eventType, version, schema), payload);
    }

    private Schema compiled(String eventType, int version, Supplier<String> schema) {
        Key key = new Key(eventType, version);
        Schema cached = compiled.get(key);
        if (cached != null) {
            return cached;
        }
        try {
            // Compiled outside the lock; two threads racing compile the same schema, and either result is right.
            Schema built = compile(JSON.readTree(schema.get()));
            compiled.put(key, built);
            return built;
        } catch (InvalidEventTypeException e) {
            throw new IllegalStateException(
                    "stored schema of " + eventType + " version " + version + " no longer compiles: " + e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Violation> violations(Schema schema, JsonNode value) {
        return schema.validate(value).stream().map(EventSchemas::violation).toList();
    }

    private static Violation violation(Error error) {
        return new Violation(error.getInstanceLocation().toString(), error.getMessage());
    }

    /** Refuses a keyword by name; the validator wraps it, so {@link #why} looks for it among the causes. */
    private static final class UnknownKeyword extends IllegalArgumentException {
        UnknownKeyword(String reason) {
            super(reason);
        }
    }

    private static String why(RuntimeException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnknownKeyword unknown) {
                return unknown.getMessage();
            }
            if (cause instanceof FileNotFoundException missing) {
                return "$ref " + missing.getMessage() + " is not in the schema; a schema must be self-contained "
                        + "(Relaybox fetches no remote reference): put shared parts under $defs";
            }
        }
        // The validator's own messages may start with the class of what it caught: a reason is for people.
        return String.valueOf(e.getMessage()).replaceAll("(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*: ", "");
    }
}
