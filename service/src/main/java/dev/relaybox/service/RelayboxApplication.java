package dev.relaybox.service;

import dev.relaybox.activities.store.Migrations;
import dev.relaybox.activities.store.Store;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.auth.BearerTokens;
import dev.relaybox.service.temporal.TemporalHealthCheck;
import dev.relaybox.service.temporal.TemporalRuntime;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class RelayboxApplication extends Application<RelayboxConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(RelayboxApplication.class);

    public static void main(String[] args) throws Exception {
        new RelayboxApplication().run(args);
    }

    @Override
    public String getName() {
        return "relaybox";
    }

    @Override
    public void initialize(Bootstrap<RelayboxConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        bootstrap.addCommand(new DbCommand());
    }

    @Override
    public void run(RelayboxConfiguration config, Environment environment) {
        boolean embedded = config.isEmbeddedDatabase() || config.getTemporal().isEmbedded();
        String authProblem = config.getAuth().productionProblem();
        if (!embedded && authProblem != null) {
            throw new IllegalStateException("refusing to start: " + authProblem);
        }

        startEmbeddedPostgresIfConfigured(config, environment);
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "postgresql");
        Migrations.migrate(dataSource);
        Jdbi jdbi = Store.configure(new JdbiFactory().build(environment, config.getDatabase(), dataSource, "postgresql"));

        TemporalRuntime temporal = TemporalRuntime.create(config.getTemporal());
        environment.lifecycle().manage(temporal);
        environment.healthChecks().register("temporal", new TemporalHealthCheck(temporal.stubs(), temporal.target()));

        JsonErrorMappers.register(environment.jersey().getResourceConfig());
        BearerTokens.register(environment.jersey(), config.getAuth());
        environment.jersey().register(new AdminOverviewResource(jdbi));

        environment.lifecycle().addServerLifecycleListener(readyMessage(config, temporal));
    }

    /** Starts the embedded PostgreSQL when {@code database.url} says so and points the pool at it. */
    static void startEmbeddedPostgresIfConfigured(RelayboxConfiguration config, Environment environment) {
        if (!config.isEmbeddedDatabase()) {
            return;
        }
        EmbeddedPostgres postgres = config.getEmbeddedPostgres().start();
        // Registered before the pool and the worker, so it is stopped after them.
        environment.lifecycle().manage(new io.dropwizard.lifecycle.Managed() {
            @Override
            public void stop() throws Exception {
                postgres.close();
            }
        });
        config.getDatabase().setUrl(postgres.getJdbcUrl("postgres", "postgres"));
        config.getDatabase().setUser("postgres");
        LOG.info("embedded PostgreSQL listening on port {} with data in {}", postgres.getPort(),
                config.getEmbeddedPostgres().getDataDirectory());
    }

    private static ServerLifecycleListener readyMessage(RelayboxConfiguration config, TemporalRuntime temporal) {
        return new ServerLifecycleListener() {
            @Override
            public void serverStarted(org.eclipse.jetty.server.Server server) {
                LOG.info("Relaybox ready: API http://localhost:{}/ | admin http://localhost:{}/healthcheck | "
                                + "Temporal {} (namespace {}, task queue {}) | database {}",
                        getLocalPort(server), getAdminPort(server), temporal.target(),
                        config.getTemporal().getNamespace(), config.getTemporal().getTaskQueue(),
                        config.getDatabase().getUrl());
            }
        };
    }
}
