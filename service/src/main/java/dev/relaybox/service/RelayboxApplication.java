package dev.relaybox.service;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.relaybox.activities.outbound.DeliveryPlanner;
import dev.relaybox.activities.outbound.OwnListeners;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.api.JsonErrorPages;
import dev.relaybox.service.api.StrictTypes;
import dev.relaybox.service.config.EmbeddedCredentials;
import dev.relaybox.service.config.Roles;
import dev.relaybox.service.dispatch.Dispatcher;
import dev.relaybox.service.dispatch.DispatcherHealthCheck;
import dev.relaybox.service.dispatch.EmbeddedEngineRecycler;
import dev.relaybox.service.dispatch.EmptyEngine;
import dev.relaybox.service.dispatch.InboxDispatchSource;
import dev.relaybox.service.dispatch.NotifyListener;
import dev.relaybox.service.dispatch.OutboxDispatchSource;
import dev.relaybox.service.dispatch.WorkflowStarter;
import dev.relaybox.service.metrics.RelayMetrics;
import dev.relaybox.service.retention.RetentionTask;
import dev.relaybox.service.temporal.TemporalHealthCheck;
import dev.relaybox.service.temporal.TemporalRuntime;
import dev.relaybox.service.temporal.WorkerHealthCheck;
import dev.relaybox.service.tracing.Tracing;
import dev.relaybox.store.Retention;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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

    private final EmbeddedPostgresBundle embeddedPostgres = new EmbeddedPostgresBundle();

    @Override
    public void initialize(Bootstrap<RelayboxConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        // Times as ISO-8601 text in every answer, not as epoch numbers.
        bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        bootstrap.addBundle(embeddedPostgres);
        bootstrap.addCommand(new DbCommand());
        bootstrap.addCommand(new ReceiveCommand());
        bootstrap.addCommand(new TemporalCommand());
        bootstrap.addCommand(new SecretsCommand());
        bootstrap.addCommand(new AuditCommand());
        bootstrap.addCommand(new EventTypesCommand());
    }

    @Override
    public void run(RelayboxConfiguration config, Environment environment) {
        StrictTypes.apply(environment.getObjectMapper());
        Tracing.install(System.getenv()).ifPresent(environment.lifecycle()::manage);
        useEmbeddedCredentials(config);
        Components components = Components.build(config, environment, embeddedPostgres.port());
        TemporalRuntime temporal = components.temporal();
        Roles roles = components.roles();
        environment
                .admin()
                .addServlet("prometheus", components.metrics().servlet())
                .addMapping("/metrics");

        // Without registered types the worker polls nothing: a process without the worker role only uses the client.
        if (roles.worker()) {
            // Applied again to the workers of each fresh worker factory when the embedded engine is recycled.
            RelayboxWorkers relayboxWorkers = components.workers();
            temporal.registerWorkers(workers ->
                    relayboxWorkers.registerOn(workers.worker(), workers.httpWorker(), workers.ownHttpWorker()));
            environment
                    .healthChecks()
                    .register(
                            "worker",
                            new WorkerHealthCheck(
                                    temporal::isWorkerRunning,
                                    config.getTemporal().getTaskQueue()));
        }
        environment.lifecycle().manage(temporal);
        environment
                .healthChecks()
                .register(
                        "temporal",
                        new TemporalHealthCheck(temporal.stubs(), temporal.target(), temporal::isRecycling));
        environment.healthChecks().register("roles", new RolesHealthCheck(roles));

        Runnable wakeDispatcher = () -> {};
        if (roles.dispatcher()) {
            Dispatcher dispatcher = dispatcher(components, environment);
            wakeDispatcher = dispatcher::wake;
            manageRecycling(config, environment, temporal, dispatcher, roles, components.metrics());
        }

        JsonErrorMappers.register(environment.jersey().getResourceConfig());
        JsonErrorPages.install(environment, config.getServerFactory());
        if (roles.api()) {
            ApiResources.register(environment, components, wakeDispatcher);
        } else {
            ApiResources.closeApplicationPort(config);
        }

        OwnListeners own = components.addresses().ownListeners();
        environment.lifecycle().addServerLifecycleListener(server -> addOwnPorts(server, own));
        environment.lifecycle().addServerLifecycleListener(ReadyMessage.listener(config, temporal, roles));
    }

    /**
     * The dispatcher that starts a workflow for each new outbox and inbox row, with what runs beside it: the
     * database's notifications that wake it, and the retention task.
     */
    private static Dispatcher dispatcher(Components components, Environment environment) {
        RelayboxConfiguration config = components.config();
        TemporalRuntime temporal = components.temporal();
        boolean worker = components.roles().worker();
        WorkflowStarter starter =
                new WorkflowStarter(temporal.client(), config.getTemporal().getTaskQueue());
        Dispatcher dispatcher = new Dispatcher(
                components.jdbi(),
                List.of(
                        new OutboxDispatchSource(
                                starter,
                                components.publishing(),
                                // Its start hands the first workflow task to this process's worker.
                                worker
                                        ? new DeliveryPlanner(
                                                components.delivery().schedule())
                                        : null),
                        new InboxDispatchSource(
                                starter, worker ? config.getInbox().build() : null)),
                config.getDispatcher(),
                components.deadLetters());
        if (temporal.inProcessEngine()) {
            dispatcher.engineStartsEmpty();
        } else {
            dispatcher.watchFor(new EmptyEngine(temporal.client()));
        }
        environment.lifecycle().manage(dispatcher);
        environment
                .lifecycle()
                .manage(new NotifyListener(
                        config.getDatabase().getUrl(),
                        config.getDatabase().getUser(),
                        config.getDatabase().getPassword(),
                        dispatcher::wake));
        environment
                .healthChecks()
                .register(
                        "dispatcher",
                        new DispatcherHealthCheck(
                                dispatcher, config.getDispatcher().getPollInterval()));
        // Background housekeeping runs where the dispatcher does; an advisory lock keeps it to one process.
        environment
                .lifecycle()
                .manage(new RetentionTask(
                        components.jdbi(),
                        new Retention(components.jdbi(), Clock.systemUTC()),
                        config.getRetention().ages(),
                        config.getRetention().getBatchSize(),
                        config.getRetention().getInterval(),
                        components.metrics().registry()));
        return dispatcher;
    }

    /**
     * Embedded mode without configured tokens or partner secrets uses the data directory's own, made on its first
     * start.
     */
    private static void useEmbeddedCredentials(RelayboxConfiguration config) {
        if (!config.isEmbedded()) {
            return;
        }
        EmbeddedCredentials credentials = EmbeddedCredentials.in(
                Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath());
        config.getAuth().useEmbeddedTokensWhereUnset(credentials);
        config.getPartners()
                .forEach((name, partner) ->
                        partner.useEmbeddedSecretWhereUnset(credentials, StartupChecks.secretVariable(name)));
        if (credentials.made()) {
            LOG.warn(
                    "made API tokens and partner secrets for this data directory in {}; in a shell: export $(cat {})",
                    credentials.file(),
                    credentials.file());
        }
    }

    private static void addOwnPorts(Server server, OwnListeners own) {
        for (Connector connector : server.getConnectors()) {
            if (connector instanceof ServerConnector bound) {
                own.add("admin".equals(bound.getName()) ? "admin" : "API", bound.getLocalPort());
            }
        }
    }

    /**
     * Embedded mode recycles its in-memory engine (see {@link EmbeddedEngineRecycler}) where this process both runs
     * the workflows and re-drives them; registered after the dispatcher and Temporal, so it stops before them.
     */
    private static void manageRecycling(
            RelayboxConfiguration config,
            Environment environment,
            TemporalRuntime temporal,
            Dispatcher dispatcher,
            Roles roles,
            RelayMetrics metrics) {
        if (!temporal.recycles()) {
            return;
        }
        if (!roles.worker()) {
            LOG.warn("temporal.embeddedRecycleAfter is ignored: this process has no worker role");
            return;
        }
        environment
                .lifecycle()
                .manage(new EmbeddedEngineRecycler(
                        temporal, dispatcher, config.getTemporal().embeddedRecycleAfter(), metrics.registry()));
    }
}
