package dev.relaybox.service;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.DeliveryPlanner;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.OwnListeners;
import dev.relaybox.activities.statemachine.StateMachine;
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
import dev.relaybox.service.metrics.DeadLetterAlerts;
import dev.relaybox.service.metrics.RelayMetrics;
import dev.relaybox.service.retention.RetentionTask;
import dev.relaybox.service.temporal.TemporalHealthCheck;
import dev.relaybox.service.temporal.TemporalRuntime;
import dev.relaybox.service.temporal.WorkerHealthCheck;
import dev.relaybox.service.tracing.Tracing;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.Retention;
import dev.relaybox.store.SecretBox;
import dev.relaybox.store.Store;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlLogger;
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
        Map<String, StateMachine> machines = StartupChecks.stateMachines(config);
        Roles roles = StartupChecks.roles(config);
        AddressPolicy addresses = StartupChecks.addressPolicy(config);
        embeddedPostgres.port().ifPresent(port -> addresses.ownListeners().add("embedded PostgreSQL", port));

        SecretBox secrets = config.getSecrets()
                .build(Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath());
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "postgresql");
        Migrations.migrate(dataSource);
        Jdbi jdbi = Store.configure(
                        new JdbiFactory().build(environment, config.getDatabase(), dataSource, "postgresql"), secrets)
                // Dropwizard's logger times every statement into its own registry, which /metrics (Micrometer's
                // Prometheus registry) does not export: a timer update under a lock per statement, read by nobody.
                .setSqlLogger(SqlLogger.NOP_SQL_LOGGER);
        ConfiguredEndpoints.sealPlaintextSecrets(jdbi);

        DeliverySettings delivery = config.getDelivery().build(addresses);
        EndpointUrlPolicy urlPolicy = new EndpointUrlPolicy(addresses);
        ConfiguredEndpoints.seed(
                jdbi, config.endpointSeeds(), urlPolicy, config.getDelivery().getSecretRotationGrace());
        StartupChecks.routedEndpointsExist(jdbi, config);
        EventSchemas schemas = new EventSchemas();
        EventCatalog catalog = new EventCatalog(jdbi, schemas);
        ConfiguredEventTypes.seed(catalog, config.getEventTypes().getCatalog());
        PublishCheck publishing =
                new PublishCheck(jdbi, schemas, config.getEventTypes().isAllowUnknown(), Clock.systemUTC());
        RelayMetrics metrics = new RelayMetrics(jdbi);
        environment.admin().addServlet("prometheus", metrics.servlet()).addMapping("/metrics");
        DeadLetters deadLetters = new DeadLetters(new DeadLetterAlerts(
                metrics.registry(),
                environment.getObjectMapper(),
                config.getAlerts().isEnabled()));

        TemporalRuntime temporal = TemporalRuntime.create(
                config.getTemporal(),
                metrics.temporalScope(),
                Path.of(config.getEmbeddedPostgres().getDataDirectory()));
        addEnginePorts(temporal, addresses.ownListeners());
        // Without registered types the worker polls nothing: a process without the worker role only uses the client.
        if (roles.worker()) {
            // Applied again to the workers of each fresh worker factory when the embedded engine is recycled.
            RelayboxWorkers relayboxWorkers = RelayboxWorkers.build(
                    jdbi,
                    RelayboxWorkers.Settings.defaults()
                            .withDelivery(delivery)
                            .withCircuit(config.getDelivery()
                                    .circuitSettings()
                                    .withTenantMaxInFlight(config.getPortal().maxInFlightPerTenant()))
                            .withInbox(config.getInbox().build())
                            .withMachines(machines)
                            .withRoutes(config.inboundRoutes()),
                    deadLetters,
                    metrics.registry());
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
            WorkflowStarter starter =
                    new WorkflowStarter(temporal.client(), config.getTemporal().getTaskQueue());
            Dispatcher dispatcher = new Dispatcher(
                    jdbi,
                    List.of(
                            new OutboxDispatchSource(
                                    starter,
                                    publishing,
                                    // Its start hands the first workflow task to this process's worker.
                                    roles.worker() ? new DeliveryPlanner(delivery.schedule()) : null),
                            new InboxDispatchSource(
                                    starter, roles.worker() ? config.getInbox().build() : null)),
                    config.getDispatcher(),
                    deadLetters);
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
                            jdbi,
                            new Retention(jdbi, Clock.systemUTC()),
                            config.getRetention().ages(),
                            config.getRetention().getBatchSize(),
                            config.getRetention().getInterval(),
                            metrics.registry()));
            wakeDispatcher = dispatcher::wake;
            manageRecycling(config, environment, temporal, dispatcher, roles, metrics);
        }

        JsonErrorMappers.register(environment.jersey().getResourceConfig());
        JsonErrorPages.install(environment, config.getServerFactory());
        if (roles.api()) {
            ApiResources.register(
                    config, environment, jdbi, urlPolicy, metrics, temporal, wakeDispatcher, publishing, catalog);
        } else {
            ApiResources.closeApplicationPort(config);
        }

        environment.lifecycle().addServerLifecycleListener(server -> addOwnPorts(server, addresses.ownListeners()));
        environment.lifecycle().addServerLifecycleListener(ReadyMessage.listener(config, temporal, roles));
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

    /**
     * Every port the embedded engine's process listens on (gRPC, UI, HTTP API, metrics and what else it opens), read
     * from the kernel: the ones it picks for itself are known only to it.
     */
    private static void addEnginePorts(TemporalRuntime temporal, OwnListeners own) {
        temporal.enginePid().ifPresent(pid -> {
            try {
                ListeningSockets.ofProcess(pid).forEach(port -> own.add("embedded Temporal", port));
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("could not read the ports of the embedded Temporal server (pid {}): {}", pid, e.toString());
            }
        });
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
