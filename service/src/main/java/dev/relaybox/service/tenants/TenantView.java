package dev.relaybox.service.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.Json;
import dev.relaybox.store.TenantStore;
import java.time.Instant;

/** What the admin API shows of a tenant. */
public record TenantView(
        String key,
        String name,
        JsonNode metadata,
        JsonNode theme,
        boolean enabled,
        Instant createdAt,
        Instant updatedAt) {
    static TenantView of(TenantStore.Tenant t) {
        return new TenantView(
                t.key(),
                t.name(),
                Json.parse(t.metadata()),
                Json.parse(t.theme()),
                t.enabled(),
                t.createdAt(),
                t.updatedAt());
    }
}
