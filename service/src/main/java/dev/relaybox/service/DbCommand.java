package dev.relaybox.service;

import dev.relaybox.activities.store.Migrations;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code relaybox db migrate config.yml}: applies pending migrations, then exits. */
final class DbCommand extends ConfiguredCommand<RelayboxConfiguration> {
    DbCommand() {
        super("db", "Database tasks: 'db migrate' applies pending schema migrations");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("migrate").help("what to do with the database");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<RelayboxConfiguration> bootstrap, Namespace namespace, RelayboxConfiguration config)
            throws Exception {
        Environment environment = new Environment(bootstrap.getApplication().getName());
        RelayboxApplication.startEmbeddedPostgresIfConfigured(config, environment);
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "migrations");
        try {
            var result = Migrations.migrate(dataSource);
            System.out.printf("schema at version %s (%d migrations applied)%n",
                    result.targetSchemaVersion == null ? result.initialSchemaVersion : result.targetSchemaVersion,
                    result.migrationsExecuted);
        } finally {
            dataSource.stop();
            for (var managed : environment.lifecycle().getManagedObjects()) {
                managed.stop();
            }
        }
    }
}
