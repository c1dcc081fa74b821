package dev.relaybox.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A subscriber: where to send which event types (and, with {@code payloadFilter}, which payloads: the JSON that {@link
 * PayloadFilterSyntax} reads), the secrets that sign them, and the static headers its requests carry (a JSON object of
 * name to value, sealed like the secrets; null when none). {@code tenant}: the customer it belongs to, or null for the
 * operator's own. {@code destination}: a broker's settings and credentials as JSON, sealed; null for an HTTP endpoint,
 * whose {@code url} is where requests go.
 */
public record Endpoint(
        UUID id,
        String name,
        String url,
        @Sealed String secret,
        @Sealed String previousSecret,
        Instant previousSecretExpiresAt,
        List<String> eventTypes,
        boolean enabled,
        String disabledReason,
        Instant createdAt,
        Instant updatedAt,
        String payloadFilter,
        @Sealed String headers,
        String tenant,
        @Sealed String destination) {}
