package dev.relaybox.service;

import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.activities.outbound.OwnListeners;
import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.service.config.Roles;
import dev.relaybox.service.metrics.DeadLetterAlerts;
import dev.relaybox.service.metrics.RelayMetrics;
import dev.relaybox.service.temporal.TemporalRuntime;
import dev.relaybox.store.Migrations;
import dev.relaybox.store.SecretBox;
import dev.relaybox.store.Store;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.OptionalInt;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlLogger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every role of a Relaybox process shares, built once from its configuration: the checked configuration, the
 * migrated and seeded database, the event catalog, metrics, dead-letter alerts and the connection to Temporal. The
 * workers, the dispatcher and the HTTP APIs are each built from it.
 */
record Components(
        RelayboxConfiguration config,
        Roles roles,
        Map<String, StateMachine> machines,
        Jdbi jdbi,
        AddressPolicy addresses,
        DeliverySettings delivery,
        EndpointUrlPolicy urlPolicy,
        EventCatalog catalog,
        PublishCheck publishing,
        RelayMetrics metrics,
        DeadLetters deadLetters,
        TemporalRuntime temporal) {
    private static final Logger LOG = LoggerFactory.getLogger(Components.class);

    /**
     * Checks the configuration, migrates the database and seeds it with the configured endpoints and event types,
     * then connects to Temporal (or starts the embedded engine). {@code embeddedPostgresPort}: the embedded database's,
     * which no endpoint may point at.
     */
    static Components build(RelayboxConfiguration config, Environment environment, OptionalInt embeddedPostgresPort) {
        Map<String, StateMachine> machines = StartupChecks.stateMachines(config);
        Roles roles = StartupChecks.roles(config);
        AddressPolicy addresses = StartupChecks.addressPolicy(config);
        embeddedPostgresPort.ifPresent(port -> addresses.ownListeners().add("embedded PostgreSQL", port));
        Path dataDirectory = Path.of(config.getEmbeddedPostgres().getDataDirectory());

        SecretBox secrets = config.getSecrets().build(dataDirectory.toAbsolutePath());
        ManagedDataSource dataSource = config.getDatabase().build(environment.metrics(), "postgresql");
        Migrations.migrate(dataSource);
        Jdbi jdbi = Store.configure(
                        new JdbiFactory().build(environment, config.getDatabase(), dataSource, "postgresql"), secrets)
                // Dropwizard's logger times every statement into its own registry, which /metrics (Micrometer's
                // Prometheus registry) does not export: a timer update under a lock per statement, read by nobody.
                .setSqlLogger(SqlLogger.NOP_SQL_LOGGER);
        ConfiguredEndpoints.sealPlaintextSecrets(jdbi);

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
        DeadLetters deadLetters = new DeadLetters(new DeadLetterAlerts(
                metrics.registry(),
                environment.getObjectMapper(),
                config.getAlerts().isEnabled()));

        TemporalRuntime temporal = TemporalRuntime.create(config.getTemporal(), metrics.temporalScope(), dataDirectory);
        addEnginePorts(temporal, addresses.ownListeners());
        return new Components(
                config,
                roles,
                machines,
                jdbi,
                addresses,
                config.getDelivery().build(addresses),
                urlPolicy,
                catalog,
                publishing,
                metrics,
                deadLetters,
                temporal);
    }

    /** The workflows' activities as configured: delivery, circuit, inbox, state machines and inbound routes. */
    RelayboxWorkers workers() {
        return RelayboxWorkers.build(
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
    }

    /**
     * Every port the embedded engine listens on: the one the in-process engine bound, or those of the dev server's
     * process (gRPC, UI, HTTP API, metrics and what else it opens), read from the kernel: the ones it picks for itself
     * are known only to it.
     */
    private static void addEnginePorts(TemporalRuntime temporal, OwnListeners own) {
        temporal.inProcessEnginePort().ifPresent(port -> own.add("embedded Temporal", port));
        temporal.enginePid().ifPresent(pid -> {
            try {
                ListeningSockets.ofProcess(pid).forEach(port -> own.add("embedded Temporal", port));
            } catch (IOException | UncheckedIOException e) {
                LOG.warn("could not read the ports of the embedded Temporal server (pid {}): {}", pid, e.toString());
            }
        });
    }
}
