package dev.relaybox.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;

/**
 * One real PostgreSQL server per test JVM; every {@link #fresh()} call gets its own migrated database,
 * cloned from a template so tests neither share rows nor pay for migrations twice.
 */
public final class TestDatabase {
    /** The key test stores seal endpoint secrets with, one per test JVM. */
    public static final SecretBox SECRETS = SecretBox.of(SecretBox.newKey(), List.of());

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static EmbeddedPostgres server;

    private TestDatabase() {}

    private static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().start();
                Migrations.migrate(database("relaybox_template", "postgres"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return server;
    }

    // One at a time: PostgreSQL refuses to copy a template that another CREATE DATABASE is copying.
    private static synchronized DataSource database(String name, String createFrom) {
        EmbeddedPostgres pg = server();
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            if (!createFrom.equals("postgres")) {
                s.execute("CREATE DATABASE " + name + " TEMPLATE " + createFrom);
            } else {
                s.execute("CREATE DATABASE " + name);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name, e);
        }
        return pg.getDatabase("postgres", name);
    }

    /** A new database with the whole schema applied. */
    public static DataSource freshDataSource() {
        return database("relaybox_test_" + NEXT.incrementAndGet(), "relaybox_template");
    }

    /** A new migrated database wrapped in a JDBI configured as the service configures it. */
    public static Jdbi fresh() {
        return Store.configure(Jdbi.create(freshDataSource()), SECRETS);
    }

    public static int port() {
        return server().getPort();
    }
}
