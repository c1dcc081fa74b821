package dev.relaybox.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.jdbi.v3.sqlobject.transaction.Transaction;

/**
 * Every statement on {@code event_types} and {@code event_type_versions}: the catalog. A version is its schema: a
 * definition whose schema equals the latest version's (as jsonb, so key order and spacing do not count) makes no
 * new version, which is what makes start-up seeds and imports idempotent. Changes to one type happen with its row
 * locked, so instances seeding the same configuration at once make one version, not two.
 */
public interface EventTypeStore extends SqlObject {
    /** A type as listed: its latest version and when it last changed. */
    record EventType(
            String name,
            String description,
            boolean deprecated,
            int latestVersion,
            Instant createdAt,
            Instant updatedAt) {}

    /** One version: its schema and example as JSON text (the example may be null). */
    record Version(int version, String schema, String example, Instant createdAt) {}

    /** What publishing needs to know of a type: which version validates, and whether it is deprecated. */
    record Latest(String name, int version, boolean deprecated) {}

    /**
     * A type as a seed, an import or {@code PUT} describes it. Null {@code description}, {@code example} or
     * {@code deprecated} leave what is stored; {@code schema} and {@code example} are JSON text.
     */
    record Definition(String name, String description, String schema, String example, Boolean deprecated) {}

    /** What {@link #define} did. */
    enum Change {
        /** The type is new: version 1. */
        CREATED,
        /** The schema differed from the latest version's: a new version. */
        NEW_VERSION,
        /** The latest version's schema already was this one: no new version. */
        SAME_SCHEMA
    }

    /** The version a definition left as the latest, and how it got there. */
    record Defined(int version, Change change) {}

    String TYPE_COLUMNS = """
            SELECT t.name, t.description, t.deprecated, t.created_at, t.updated_at,
                   (SELECT max(v.version) FROM event_type_versions v WHERE v.event_type = t.name) AS latest_version
              FROM event_types t""";

    @SqlQuery(TYPE_COLUMNS + " ORDER BY t.name")
    @RegisterConstructorMapper(EventType.class)
    List<EventType> list();

    @SqlQuery(TYPE_COLUMNS + " WHERE t.name = :name")
    @RegisterConstructorMapper(EventType.class)
    Optional<EventType> find(@Bind("name") String name);

    /** Newest first. */
    @SqlQuery("""
            SELECT version, schema::text AS schema, example::text AS example, created_at
              FROM event_type_versions WHERE event_type = :name ORDER BY version DESC""")
    @RegisterConstructorMapper(Version.class)
    List<Version> versions(@Bind("name") String name);

    /** A type at its latest version: what receivers are told about it. */
    record Current(String name, String description, boolean deprecated, int version, String schema, String example) {}

    @SqlQuery("""
            SELECT t.name, t.description, t.deprecated, v.version, v.schema::text AS schema, v.example::text AS example
              FROM event_types t
              JOIN LATERAL (SELECT version, schema, example FROM event_type_versions
                             WHERE event_type = t.name ORDER BY version DESC LIMIT 1) v ON true
             ORDER BY t.name""")
    @RegisterConstructorMapper(Current.class)
    List<Current> current();

    @SqlQuery("""
            SELECT t.name, t.deprecated, v.version
              FROM event_types t
              JOIN LATERAL (SELECT version FROM event_type_versions
                             WHERE event_type = t.name ORDER BY version DESC LIMIT 1) v ON true
             WHERE t.name = :name""")
    @RegisterConstructorMapper(Latest.class)
    Optional<Latest> latest(@Bind("name") String name);

    @SqlQuery("SELECT schema::text FROM event_type_versions WHERE event_type = :name AND version = :version")
    Optional<String> schema(@Bind("name") String name, @Bind("version") int version);

    @SqlUpdate("UPDATE event_types SET deprecated = :deprecated, updated_at = now() WHERE name = :name")
    boolean setDeprecated(@Bind("name") String name, @Bind("deprecated") boolean deprecated);

    /** Creates the type at version 1; false, changing nothing, when it exists. */
    @Transaction
    default boolean create(Definition definition) {
        if (!insertType(definition.name(), definition.description() == null ? "" : definition.description())) {
            return false;
        }
        insertVersion(definition.name(), 1, definition.schema(), definition.example());
        if (Boolean.TRUE.equals(definition.deprecated())) {
            setDeprecated(definition.name(), true);
        }
        return true;
    }

    /** Revises an existing type (see {@link #define}); empty, changing nothing, when there is no such type. */
    @Transaction
    default Optional<Defined> revise(Definition definition) {
        Optional<LatestSchema> latest = lockLatest(definition.name(), definition.schema(), definition.example());
        if (latest.isEmpty()) {
            return Optional.empty();
        }
        LatestSchema current = latest.get();
        updateType(definition.name(), definition.description(), definition.deprecated());
        if (!current.sameSchema()) {
            insertVersion(definition.name(), current.version() + 1, definition.schema(), definition.example());
            touch(definition.name());
            return Optional.of(new Defined(current.version() + 1, Change.NEW_VERSION));
        }
        // An example is documentation, not contract: a new one with the same schema replaces the latest's.
        if (definition.example() != null && !current.sameExample()) {
            replaceExample(definition.name(), current.version(), definition.example());
            touch(definition.name());
        }
        return Optional.of(new Defined(current.version(), Change.SAME_SCHEMA));
    }

    /**
     * Creates the type, or revises it: a schema other than the latest version's becomes a new version; the same
     * schema makes none. Description and deprecation are set when given.
     */
    @Transaction
    default Defined define(Definition definition) {
        if (create(definition)) {
            return new Defined(1, Change.CREATED);
        }
        return revise(definition).orElseThrow();
    }

    /** The latest version, the type's row locked, compared with a definition's schema and example. */
    record LatestSchema(int version, boolean sameSchema, boolean sameExample) {}

    @SqlQuery("""
            SELECT v.version, v.schema = CAST(:schema AS jsonb) AS same_schema,
                   v.example IS NOT DISTINCT FROM CAST(:example AS jsonb) AS same_example
              FROM (SELECT name FROM event_types WHERE name = :name FOR UPDATE) t
              JOIN event_type_versions v ON v.event_type = t.name
             ORDER BY v.version DESC LIMIT 1""")
    @RegisterConstructorMapper(LatestSchema.class)
    Optional<LatestSchema> lockLatest(
            @Bind("name") String name, @Bind("schema") String schema, @Bind("example") String example);

    @SqlUpdate("INSERT INTO event_types (name, description) VALUES (:name, :description) ON CONFLICT DO NOTHING")
    boolean insertType(@Bind("name") String name, @Bind("description") String description);

    @SqlUpdate("""
            INSERT INTO event_type_versions (event_type, version, schema, example)
            VALUES (:name, :version, CAST(:schema AS jsonb), CAST(:example AS jsonb))""")
    void insertVersion(
            @Bind("name") String name,
            @Bind("version") int version,
            @Bind("schema") String schema,
            @Bind("example") String example);

    @SqlUpdate("""
            UPDATE event_type_versions SET example = CAST(:example AS jsonb)
             WHERE event_type = :name AND version = :version""")
    void replaceExample(@Bind("name") String name, @Bind("version") int version, @Bind("example") String example);

    /** Sets what is given and differs; true when anything changed. */
    @SqlUpdate("""
            UPDATE event_types SET description = COALESCE(:description, description),
                                   deprecated = COALESCE(:deprecated, deprecated), updated_at = now()
             WHERE name = :name
               AND (description IS DISTINCT FROM COALESCE(:description, description)
                    OR deprecated IS DISTINCT FROM COALESCE(:deprecated, deprecated))""")
    boolean updateType(
            @Bind("name") String name, @Bind("description") String description, @Bind("deprecated") Boolean deprecated);

    @SqlUpdate("UPDATE event_types SET updated_at = now() WHERE name = :name")
    void touch(@Bind("name") String name);
}
