package dev.relaybox.service.tenants;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.service.api.Json;
import dev.relaybox.service.catalog.EventTypes;
import dev.relaybox.service.config.PortalFactory;
import dev.relaybox.service.outbound.EndpointView;
import dev.relaybox.service.outbound.Endpoints;
import dev.relaybox.service.recovery.EndpointRecovery;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.OutboxStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * What a tenant does through its portal beyond what {@link Endpoints} and {@link TenantDeliveries} do for it: its
 * look, the event types it may subscribe to, and the actions its quotas bound (endpoints, test events and resends a
 * minute). Every method takes the tenant from the caller; an endpoint of another tenant is not found.
 */
public final class Portal {
    private final Jdbi jdbi;
    private final Endpoints endpoints;
    private final Tenants tenants;
    private final EventTypes eventTypes;
    private final EndpointRecovery recovery;
    private final TenantDeliveries deliveries;
    private final Map<String, String> theme;
    private final PortalFactory.Quotas quotas;
    private final Set<String> destinationTypes;
    private final TenantQuotas used = new TenantQuotas(System::currentTimeMillis);

    /**
     * {@code theme}: the look of every tenant's portal where its own theme says nothing; {@code destinationTypes}: the
     * broker destinations tenants may give their endpoints (none: HTTP only).
     */
    public Portal(
            Jdbi jdbi,
            Endpoints endpoints,
            Tenants tenants,
            EventTypes eventTypes,
            EndpointRecovery recovery,
            TenantDeliveries deliveries,
            Map<String, String> theme,
            PortalFactory.Quotas quotas,
            Set<String> destinationTypes) {
        this.jdbi = jdbi;
        this.endpoints = endpoints;
        this.tenants = tenants;
        this.eventTypes = eventTypes;
        this.recovery = recovery;
        this.deliveries = deliveries;
        this.theme = Map.copyOf(theme);
        this.quotas = quotas;
        this.destinationTypes = Set.copyOf(destinationTypes);
    }

    public record Me(Map<String, String> tenant, Map<String, String> theme) {}

    /** The tenant and its look: its own theme's text values over the operator's. */
    public Me me(String tenantKey) {
        var tenant = tenants.find(tenantKey);
        Map<String, String> merged = new HashMap<>(theme);
        Json.parse(tenant.theme()).fields().forEachRemaining(field -> {
            if (field.getValue().isTextual()) {
                merged.put(field.getKey(), field.getValue().asText());
            }
        });
        return new Me(Map.of("key", tenant.key(), "name", tenant.name()), merged);
    }

    public List<EventTypes.EventTypeView> eventTypes() {
        return eventTypes.subscribable();
    }

    /** A new endpoint, while the tenant has fewer than its quota. */
    public EndpointView createEndpoint(String tenant, PortalNewEndpoint request) {
        int existing = jdbi.withExtension(EndpointStore.class, store -> store.countOfTenant(tenant));
        if (existing >= quotas.endpoints()) {
            throw ApiException.conflict(
                    "quota_exceeded", "at most " + quotas.endpoints() + " endpoints; ask your provider for more");
        }
        return endpoints.create(request.asEndpoint(destinationTypes), tenant);
    }

    public EndpointView changeEndpoint(String tenant, UUID endpointId, PortalEndpointChange change) {
        return endpoints.change(endpointId, change.asChange(destinationTypes), tenant);
    }

    /** Puts a {@code relaybox.test} event for this endpoint alone in the outbox; returns its row's id. */
    public UUID sendTest(String tenant, UUID endpointId) {
        String name = endpoints.find(endpointId, tenant).name();
        used.take(tenant, "test events", quotas.testsPerMinute());
        return jdbi.withExtension(OutboxStore.class, store -> store.enqueueTest(endpointId, name, tenant));
    }

    public EndpointRecovery.Recovered recover(
            String tenant, UUID endpointId, EndpointRecovery.RecoverRequest request, String by) {
        endpoints.find(endpointId, tenant);
        used.take(tenant, "resends", quotas.resendsPerMinute());
        return recovery.recover(endpointId, request, by, tenant);
    }

    public TenantDeliveries.Stats stats(String tenant, UUID endpointId) {
        endpoints.find(endpointId, tenant);
        return deliveries.stats(endpointId);
    }

    public void resend(String tenant, UUID deliveryId, String by) {
        used.take(tenant, "resends", quotas.resendsPerMinute());
        deliveries.resend(tenant, deliveryId, by);
    }
}
