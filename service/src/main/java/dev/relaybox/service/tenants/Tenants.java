package dev.relaybox.service.tenants;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.TenantStore;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Tenants as a use case, each operation in its own transaction. A tenant is disabled, never deleted: its endpoints
 * stop with it and its portal links stop working; enabled again, the endpoints its disabling stopped go on with what
 * they held.
 */
public final class Tenants {
    private final Jdbi jdbi;

    public Tenants(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public TenantView create(TenantRequest request) {
        if (request.key() == null || request.name() == null) {
            throw new ApiException(422, "invalid_request", "key and name are required");
        }
        TenantStore.Tenant created = jdbi.withExtension(
                        TenantStore.class,
                        t -> t.insert(
                                request.key(),
                                request.name(),
                                request.metadataText() == null ? "{}" : request.metadataText(),
                                request.themeText() == null ? "{}" : request.themeText()))
                .orElseThrow(() -> ApiException.conflict(
                        "tenant_exists", "a tenant with key \"" + request.key() + "\" already exists"));
        return TenantView.of(created);
    }

    public List<TenantView> list() {
        return jdbi.withExtension(TenantStore.class, TenantStore::list).stream()
                .map(TenantView::of)
                .toList();
    }

    /** The tenant with this key, or a 404. */
    public TenantStore.Tenant find(String key) {
        return jdbi.withExtension(TenantStore.class, t -> t.find(key)).orElseThrow(() -> notFound(key));
    }

    /** Renames it, changes its metadata or theme; disabling stops its endpoints, enabling resumes what they held. */
    public TenantView change(String key, TenantRequest request) {
        if (request.key() != null && !request.key().equals(key)) {
            throw new ApiException(422, "invalid_request", "a tenant's key cannot change");
        }
        boolean resumed = jdbi.inTransaction(h -> {
            TenantStore store = h.attach(TenantStore.class);
            store.update(key, request.name(), request.metadataText(), request.themeText())
                    .orElseThrow(() -> notFound(key));
            if (request.enabled() == null || !store.setEnabled(key, request.enabled())) {
                return false;
            }
            if (!request.enabled()) {
                store.disableEndpoints(key);
                return false;
            }
            DeliveryStore deliveryStore = h.attach(DeliveryStore.class);
            int resumedRows = 0;
            for (UUID endpoint : store.enableEndpoints(key, TenantStore.DISABLED_REASON)) {
                resumedRows += deliveryStore.resumePaused(endpoint);
            }
            return resumedRows > 0;
        });
        if (resumed) {
            jdbi.useExtension(OutboxStore.class, OutboxStore::wakeDispatcher);
        }
        return TenantView.of(find(key));
    }

    /** Revokes one portal link of the tenant, or all of them when {@code sessionId} is null; how many. */
    public int revoke(String key, UUID sessionId) {
        find(key);
        return jdbi.withExtension(TenantStore.class, t -> t.revoke(key, sessionId));
    }

    private static ApiException notFound(String key) {
        return ApiException.notFound("tenant_not_found", "no tenant with key \"" + key + "\"");
    }
}
