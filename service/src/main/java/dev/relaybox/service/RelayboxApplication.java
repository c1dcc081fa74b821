package dev.relaybox.service;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.relaybox.activities.RelayboxWorkers;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.inbound.InboxActivitiesImpl;
import dev.relaybox.activities.inbound.InboxIntake;
import dev.relaybox.activities.inbound.InboxQueries;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.DeliveryActivitiesImpl;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.EndpointControlActivitiesImpl;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.OutboxStore;
import dev.relaybox.activities.outbound.OwnListeners;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.store.Migrations;
import dev.relaybox.activities.store.Retention;
import dev.relaybox.activities.store.SecretBox;
import dev.relaybox.activities.store.Store;
import dev.relaybox.service.admin.AdminDeadLettersResource;
import dev.relaybox.service.admin.AdminDeliveriesResource;
import dev.relaybox.service.admin.AdminInboxResource;
import dev.relaybox.service.admin.AdminOutboxResource;
import dev.relaybox.service.admin.AdminOverviewResource;
import dev.relaybox.service.admin.AdminPageResource;
import dev.relaybox.service.admin.AdminStoryResource;
import dev.relaybox.service.admin.AdminWorkflowsResource;
import dev.relaybox.service.admin.DeadLetterEdits;
import dev.relaybox.service.admin.ImmediateRetry;
import dev.relaybox.service.admin.PayloadSchemas;
import dev.relaybox.service.admin.TemporalLinks;
import dev.relaybox.service.api.JsonBodyLimit;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.api.OpenApiResource;
import dev.relaybox.service.auth.BearerTokens;
import dev.relaybox.service.config.Roles;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.dispatch.Dispatcher;
import dev.relaybox.service.dispatch.DispatcherHealthCheck;
import dev.relaybox.service.dispatch.InboxDispatchSource;
import dev.relaybox.service.dispatch.NotifyListener;
import dev.relaybox.service.dispatch.OutboxDispatchSource;
import dev.relaybox.service.dispatch.WorkflowStarter;
import dev.relaybox.service.inbound.EntitiesResource;
import dev.relaybox.service.inbound.WebhookIntakeResource;
import dev.relaybox.service.metrics.DeadLetterAlerts;
import dev.relaybox.service.metrics.RelayMetrics;
import dev.relaybox.service.outbound.EndpointsResource;
import dev.relaybox.service.outbound.OutboxResource;
import dev.relaybox.service.retention.RetentionTask;
import dev.relaybox.service.temporal.EmbeddedEngineRecycler;
import dev.relaybox.service.temporal.TemporalHealthCheck;
import dev.relaybox.service.temporal.TemporalRuntime;
import dev.relaybox.service.temporal.WorkerHealthCheck;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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
    }

    @Override
    public void run(RelayboxConfiguration config, Environment environment) {
        Map<String, StateMachine> machines = StartupChecks.stateMachines(config);
        Roles roles = StartupChecks.roles(config);
        AddressPolicy addresses = StartupChecks.addressPolicy(config);
        embeddedPostgres.port().ifPresent(port -> addresses.ownListeners().add("embedded PostgreSQL", port));

        SecretBox secrets = config.getSecrets()
                .build(Path.of(config.getEmbeddedPostgres().getDataDirectory()).toAbsolutePath());
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "postgresql");
        Migrations.migrate(dataSource);
        Jdbi jdbi = Store.configure(
                new JdbiFactory().build(environment, config.getDatabase(), dataSource, "postgresql"), secrets);
        ConfiguredEndpoints.sealPlaintextSecrets(jdbi);

        DeliverySettings delivery = config.getDelivery().build(addresses);
        EndpointUrlPolicy urlPolicy = new EndpointUrlPolicy(addresses);
        ConfiguredEndpoints.seed(
                jdbi, config.endpointSeeds(), urlPolicy, config.getDelivery().getSecretRotationGrace());
        StartupChecks.routedEndpointsExist(jdbi, config);
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
        // Without registered types the worker polls nothing: a process without the worker role only uses the client.
        if (roles.worker()) {
            EndpointControlActivitiesImpl endpointControls =
                    new EndpointControlActivitiesImpl(jdbi, config.getDelivery().circuitSettings(), metrics.registry());
            DeliveryActivitiesImpl deliveryActivities =
                    new DeliveryActivitiesImpl(jdbi, delivery, deadLetters, metrics.registry(), endpointControls);
            InboxActivitiesImpl inboxActivities = new InboxActivitiesImpl(
                    jdbi, machines, config.inboundRoutes(), config.getInbox().build(), deadLetters);
            // Applied again to the workers of each fresh worker factory when the embedded engine is recycled.
            RelayboxWorkers relayboxWorkers =
                    new RelayboxWorkers(deliveryActivities, endpointControls, inboxActivities);
            temporal.registerWorkers(workers -> relayboxWorkers.registerOn(workers.worker(), workers.httpWorker()));
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
                    List.of(new OutboxDispatchSource(starter), new InboxDispatchSource(starter)),
                    config.getDispatcher(),
                    deadLetters);
            if (temporal.inProcessEngine()) {
                dispatcher.engineStartsEmpty();
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
        if (roles.api()) {
            registerApi(config, environment, jdbi, urlPolicy, metrics, temporal, wakeDispatcher);
        } else {
            closeApplicationPort(config);
        }

        environment.lifecycle().addServerLifecycleListener(server -> addOwnPorts(server, addresses.ownListeners()));
        environment.lifecycle().addServerLifecycleListener(ReadyMessage.listener(config, temporal, roles));
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

    /** The HTTP APIs: partner intake, the producer API, the admin API and page. */
    private static void registerApi(
            RelayboxConfiguration config,
            Environment environment,
            Jdbi jdbi,
            EndpointUrlPolicy urlPolicy,
            RelayMetrics metrics,
            TemporalRuntime temporal,
            Runnable wakeDispatcher) {
        TemporalLinks links = new TemporalLinks(
                config.getTemporal()
                        .uiBaseUrl()
                        .or(temporal::embeddedUiUrl)
                        .orElse(TemporalFactory.DEFAULT_UI_BASE_URL),
                config.getTemporal().getNamespace(),
                temporal.inProcessEngine());
        BearerTokens.register(environment.jersey(), config.getAuth());
        environment
                .jersey()
                .register(new JsonBodyLimit(
                        environment.getObjectMapper(), config.getOutbox().maxPayloadBytes()));
        environment
                .jersey()
                .register(new OutboxResource(
                        jdbi.onDemand(OutboxStore.class), config.getOutbox().getAggregateTypes()));
        environment
                .jersey()
                .register(new EndpointsResource(
                        jdbi, urlPolicy, config.getDelivery().getSecretRotationGrace()));
        environment.jersey().register(new AdminOverviewResource(jdbi));
        environment.jersey().register(new AdminPageResource());
        environment.jersey().register(new AdminOutboxResource(jdbi, links));
        // Any process with the api role starts a gone workflow itself, as the reconciler would: no dispatcher needed.
        WorkflowStarter starter =
                new WorkflowStarter(temporal.client(), config.getTemporal().getTaskQueue());
        ImmediateRetry immediateRetry = new ImmediateRetry(
                jdbi, temporal.client(), new OutboxDispatchSource(starter), new InboxDispatchSource(starter));
        environment.jersey().register(new AdminDeliveriesResource(jdbi, immediateRetry, links));
        DeadLetterEdits edits = new DeadLetterEdits(
                config.getPartners(), config.getOutbox().maxPayloadBytes(), PayloadSchemas.ACCEPT_ALL);
        environment.jersey().register(new AdminDeadLettersResource(jdbi, links, wakeDispatcher, edits));
        InboxQueries inbox = jdbi.onDemand(InboxQueries.class);
        environment.jersey().register(new AdminInboxResource(inbox, immediateRetry, links));
        environment.jersey().register(new AdminWorkflowsResource(temporal.client(), links));
        environment.jersey().register(new AdminStoryResource(jdbi, links));
        environment
                .jersey()
                .register(new WebhookIntakeResource(
                        jdbi.onDemand(InboxIntake.class),
                        environment.getObjectMapper(),
                        config.getPartners(),
                        metrics));
        environment.jersey().register(new EntitiesResource(inbox));
        environment.jersey().register(new OpenApiResource(version()));
    }

    /** A process without the api role listens on its admin port only (health checks, metrics). */
    private static void closeApplicationPort(RelayboxConfiguration config) {
        if (config.getServerFactory() instanceof DefaultServerFactory server) {
            server.setApplicationConnectors(List.of());
        }
    }

    /** The release in the jar's manifest; a build run from the source tree has none. */
    private static String version() {
        String version = RelayboxApplication.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }
}
