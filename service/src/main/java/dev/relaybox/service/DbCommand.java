package dev.relaybox.service;

import dev.relaybox.store.Migrations;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.OptionalInt;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code relaybox db migrate config.yml}: applies pending migrations, then exits.
 * {@code relaybox db dump config.yml [--output file]}: a consistent backup of the embedded database with pg_dump,
 * from the running server if Relaybox runs, otherwise from a server started on the data directory for the dump.
 */
final class DbCommand extends ConfiguredCommand<RelayboxConfiguration> {
    DbCommand() {
        super(
                "db",
                "Database tasks: 'db migrate' applies pending schema migrations; 'db dump' backs up the embedded "
                        + "database with pg_dump");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("migrate", "dump").help("what to do with the database");
        subparser
                .addArgument("--output", "-o")
                .dest("output")
                .help("dump: the SQL file to write (default relaybox-<UTC time>.sql)");
        subparser
                .addArgument("--pg-dump")
                .dest("pgDump")
                .setDefault("pg_dump")
                .help(
                        "dump: the pg_dump to run, of the server's major version or newer (default: pg_dump on the PATH)");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        if (namespace.getString("action").equals("dump")) {
            dump(bootstrap, namespace, config);
            return;
        }
        Environment environment = new Environment(bootstrap.getApplication().getName());
        EmbeddedPostgresBundle.start(config, environment);
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "migrations");
        try {
            var result = Migrations.migrate(dataSource);
            System.out.printf(
                    "schema at version %s (%d migrations applied)%n",
                    result.targetSchemaVersion == null ? result.initialSchemaVersion : result.targetSchemaVersion,
                    result.migrationsExecuted);
        } finally {
            dataSource.stop();
            stopAll(environment);
        }
    }

    private static void dump(
            Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        if (!config.isEmbeddedDatabase()) {
            throw new IllegalStateException("db dump backs up the embedded database; database.url points at another "
                    + "PostgreSQL, back it up with pg_dump or your provider's backups");
        }
        Path output = Path.of(
                        namespace.getString("output") == null
                                ? "relaybox-"
                                        + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                                                .withZone(ZoneOffset.UTC)
                                                .format(Instant.now())
                                        + ".sql"
                                : namespace.getString("output"))
                .toAbsolutePath();
        Path data = Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath();
        OptionalInt running = EmbeddedDump.runningServerPort(data);
        Environment environment = new Environment(bootstrap.getApplication().getName());
        try {
            int port;
            if (running.isPresent()) {
                port = running.getAsInt();
                System.out.printf("dumping the running embedded PostgreSQL (port %d, data in %s)%n", port, data);
            } else {
                port = EmbeddedPostgresBundle.start(config, environment)
                        .orElseThrow()
                        .getPort();
                System.out.printf("started the embedded PostgreSQL on %s for the dump%n", data);
            }
            EmbeddedDump.dump(namespace.getString("pgDump"), port, output);
            System.out.printf(
                    "wrote %s (%,d bytes): restore with psql -v ON_ERROR_STOP=1 -d <database> -f %s%n",
                    output, Files.size(output), output.getFileName());
        } finally {
            stopAll(environment);
        }
    }

    private static void stopAll(Environment environment) throws Exception {
        // Managed objects registered here: the embedded PostgreSQL, when this command started it.
        for (var managed : environment.lifecycle().getManagedObjects()) {
            managed.stop();
        }
    }
}
