package dev.relaybox.service;

import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.service.admin.AdminAuditLogResource;
import dev.relaybox.service.admin.AdminDeadLettersResource;
import dev.relaybox.service.admin.AdminDeliveriesResource;
import dev.relaybox.service.admin.AdminInboxResource;
import dev.relaybox.service.admin.AdminOutboxResource;
import dev.relaybox.service.admin.AdminOverviewResource;
import dev.relaybox.service.admin.AdminPageResource;
import dev.relaybox.service.admin.AdminStoryResource;
import dev.relaybox.service.admin.AdminWorkflowsResource;
import dev.relaybox.service.admin.EndpointRecoveryResource;
import dev.relaybox.service.admin.TemporalLinks;
import dev.relaybox.service.api.JsonBodyLimit;
import dev.relaybox.service.api.OpenApiResource;
import dev.relaybox.service.api.StorableQueries;
import dev.relaybox.service.auth.BearerTokens;
import dev.relaybox.service.auth.PortalTokens;
import dev.relaybox.service.catalog.CatalogWebhooks;
import dev.relaybox.service.catalog.EventTypes;
import dev.relaybox.service.catalog.EventTypesResource;
import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.dispatch.InboxDispatchSource;
import dev.relaybox.service.dispatch.OutboxDispatchSource;
import dev.relaybox.service.dispatch.WorkflowStarter;
import dev.relaybox.service.inbound.EntitiesResource;
import dev.relaybox.service.inbound.WebhookIntakeResource;
import dev.relaybox.service.outbound.Endpoints;
import dev.relaybox.service.outbound.EndpointsResource;
import dev.relaybox.service.outbound.OutboxResource;
import dev.relaybox.service.recovery.DeadLetterEdits;
import dev.relaybox.service.recovery.DeadLetterReplay;
import dev.relaybox.service.recovery.EndpointRecovery;
import dev.relaybox.service.recovery.ImmediateRetry;
import dev.relaybox.service.recovery.PayloadSchemas;
import dev.relaybox.service.temporal.TemporalRuntime;
import dev.relaybox.service.tenants.EndpointStatsResource;
import dev.relaybox.service.tenants.Portal;
import dev.relaybox.service.tenants.PortalPageResource;
import dev.relaybox.service.tenants.PortalResource;
import dev.relaybox.service.tenants.TenantDeliveries;
import dev.relaybox.service.tenants.Tenants;
import dev.relaybox.service.tenants.TenantsResource;
import dev.relaybox.store.InboxIntake;
import dev.relaybox.store.InboxQueries;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.SealedColumns;
import dev.relaybox.store.TenantStore;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** The resources a process with the api role serves, registered on Jersey; without the role, no application port. */
final class ApiResources {
    private ApiResources() {}

    /** The HTTP APIs: partner intake, the producer API, the admin API (the catalog's too) and page. */
    static void register(Environment environment, Components components, Runnable wakeDispatcher) {
        RelayboxConfiguration config = components.config();
        Jdbi jdbi = components.jdbi();
        TemporalRuntime temporal = components.temporal();
        PublishCheck publishing = components.publishing();
        TemporalLinks links = new TemporalLinks(
                config.getTemporal()
                        .uiBaseUrl()
                        .or(temporal::embeddedUiUrl)
                        .orElse(TemporalFactory.DEFAULT_UI_BASE_URL),
                config.getTemporal().getNamespace(),
                temporal.inProcessEngine());
        PortalTokens portalTokens =
                new PortalTokens(jdbi, jdbi.getConfig(SealedColumns.class).box());
        BearerTokens.register(environment.jersey(), config.getAuth(), portalTokens);
        environment.jersey().register(new StorableQueries());
        environment
                .jersey()
                .register(new JsonBodyLimit(
                        environment.getObjectMapper(), config.getOutbox().maxPayloadBytes()));
        environment
                .jersey()
                .register(new OutboxResource(
                        jdbi.onDemand(OutboxStore.class),
                        config.getOutbox().getAggregateTypes(),
                        publishing,
                        jdbi.onDemand(TenantStore.class)));
        Endpoints endpoints = new Endpoints(
                jdbi,
                components.urlPolicy(),
                config.getDelivery().getSecretRotationGrace(),
                config.getPortal().maxInFlightPerEndpoint());
        environment.jersey().register(new EndpointsResource(endpoints));
        environment.jersey().register(new AdminOverviewResource(jdbi));
        environment.jersey().register(new AdminAuditLogResource(jdbi));
        environment.jersey().register(new AdminPageResource());
        environment.jersey().register(new AdminOutboxResource(jdbi, links));
        // Any process with the api role starts a gone workflow itself, as the reconciler would: no dispatcher needed.
        WorkflowStarter starter =
                new WorkflowStarter(temporal.client(), config.getTemporal().getTaskQueue());
        ImmediateRetry immediateRetry = new ImmediateRetry(
                jdbi, temporal.client(), new OutboxDispatchSource(starter), new InboxDispatchSource(starter));
        environment.jersey().register(new AdminDeliveriesResource(jdbi, immediateRetry, links));
        PayloadSchemas schemas = (eventType, payload) -> Optional.ofNullable(publishing.check(eventType, payload))
                .filter(PublishCheck.Verdict::refused)
                .map(PublishCheck.Verdict::reason);
        DeadLetterEdits edits =
                new DeadLetterEdits(config.getPartners(), config.getOutbox().maxPayloadBytes(), schemas);
        DeadLetterReplay replay = new DeadLetterReplay(jdbi, wakeDispatcher, edits);
        environment.jersey().register(new AdminDeadLettersResource(jdbi, links, replay));
        EndpointRecovery recovery = new EndpointRecovery(jdbi, replay);
        environment.jersey().register(new EndpointRecoveryResource(recovery));
        TenantDeliveries tenantDeliveries = new TenantDeliveries(jdbi, replay, wakeDispatcher);
        Tenants tenants = new Tenants(jdbi);
        EventTypes eventTypes = new EventTypes(jdbi, components.catalog());
        environment
                .jersey()
                .register(new TenantsResource(tenants, endpoints, tenantDeliveries, portalTokens, config.getPortal()));
        environment.jersey().register(new EndpointStatsResource(endpoints, tenantDeliveries));
        environment.jersey().register(new PortalPageResource(config.getPortal().frameAncestors()));
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
                        components.metrics()));
        environment.jersey().register(new EntitiesResource(inbox));
        environment.jersey().register(new EventTypesResource(eventTypes));
        environment
                .jersey()
                .register(new PortalResource(
                        new Portal(
                                jdbi,
                                endpoints,
                                tenants,
                                eventTypes,
                                recovery,
                                tenantDeliveries,
                                config.getPortal().theme(),
                                config.getPortal().quotas(),
                                config.getPortal().destinationTypes()),
                        endpoints,
                        tenantDeliveries));
        environment.jersey().register(new OpenApiResource(version(), new CatalogWebhooks(jdbi)::section));
    }

    /** A process without the api role listens on its admin port only (health checks, metrics). */
    static void closeApplicationPort(RelayboxConfiguration config) {
        if (config.getServerFactory() instanceof DefaultServerFactory server) {
            server.setApplicationConnectors(List.of());
        }
    }

    /** The release in the jar's manifest; a build run from the source tree has none. */
    private static String version() {
        String version = ApiResources.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }
}
