package dev.relaybox.activities.outbound;

import dev.relaybox.activities.store.Sealed;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A subscriber: where to send which event types, and the secrets that sign them. */
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
        Instant updatedAt) {}
