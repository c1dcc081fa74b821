package dev.relaybox.service;

import io.dropwizard.core.ConfiguredBundle;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embedded mode's PostgreSQL: when {@code database.url} is {@code embedded}, the server starts from its data
 * directory before the application runs, the pool is pointed at it, and it stops after everything that uses it. The
 * commands that need the database ({@code db}, {@code secrets}, {@code event-types}) start it through {@link #start}
 * the same way.
 */
final class EmbeddedPostgresBundle implements ConfiguredBundle<RelayboxConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresBundle.class);

    private EmbeddedPostgres server;

    @Override
    public void run(RelayboxConfiguration config, Environment environment) {
        server = start(config, environment).orElse(null);
    }

    /** The port the embedded server listens on; empty when the database is not embedded. */
    OptionalInt port() {
        return server == null ? OptionalInt.empty() : OptionalInt.of(server.getPort());
    }

    /** Starts the server when {@code database.url} says so and points the pool at it. */
    static Optional<EmbeddedPostgres> start(RelayboxConfiguration config, Environment environment) {
        if (!config.isEmbeddedDatabase()) {
            return Optional.empty();
        }
        EmbeddedPostgres postgres = config.getEmbeddedPostgres().start();
        // Managed before the pool and the worker, so it is stopped after them.
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() throws Exception {
                postgres.close();
            }
        });
        config.useEmbeddedDatabase(postgres.getJdbcUrl("postgres", "postgres"));
        LOG.info(
                "embedded PostgreSQL listening on port {} with data in {}",
                postgres.getPort(),
                config.getEmbeddedPostgres().getDataDirectory());
        if (!config.getEmbeddedPostgres().isDurable()) {
            LOG.warn("embedded PostgreSQL runs with fsync and synchronous commit off: a crash can lose what was "
                    + "acknowledged; set embeddedPostgres.durable: true for data you need");
        }
        return Optional.of(postgres);
    }
}
