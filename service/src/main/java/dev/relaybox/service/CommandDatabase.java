package dev.relaybox.service;

import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * The database a command works on: the configured one or, in embedded mode, the running Relaybox's PostgreSQL when
 * one runs on the data directory, else one started for the command and stopped with it.
 */
final class CommandDatabase implements AutoCloseable {
    private final Environment environment;
    private final ManagedDataSource dataSource;

    private CommandDatabase(Environment environment, ManagedDataSource dataSource) {
        this.environment = environment;
        this.dataSource = dataSource;
    }

    static CommandDatabase open(Bootstrap<RelayboxConfiguration> bootstrap, RelayboxConfiguration config, String name)
            throws IOException {
        Environment environment = new Environment(bootstrap.getApplication().getName());
        OptionalInt running = config.isEmbeddedDatabase()
                ? EmbeddedDump.runningServerPort(
                        Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath())
                : OptionalInt.empty();
        if (running.isPresent()) {
            config.getDatabase().setUrl("jdbc:postgresql://localhost:" + running.getAsInt() + "/postgres");
            config.getDatabase().setUser("postgres");
        } else {
            EmbeddedPostgresBundle.start(config, environment);
        }
        return new CommandDatabase(environment, config.getDatabase().build(environment.metrics(), name));
    }

    ManagedDataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() throws Exception {
        dataSource.stop();
        for (var managed : environment.lifecycle().getManagedObjects()) {
            managed.stop();
        }
    }
}
