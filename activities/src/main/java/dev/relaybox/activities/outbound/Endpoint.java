package dev.relaybox.activities.outbound;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A subscriber: where to send which event types, and the secrets that sign them. */
public record Endpoint(
        UUID id,
        String name,
        String url,
        String secret,
        String previousSecret,
        Instant previousSecretExpiresAt,
        List<String> eventTypes,
        boolean enabled,
        String disabledReason,
        Instant createdAt,
        Instant updatedAt) {

    /** The secrets that sign a request sent at {@code now}: the current one, plus the previous one during its grace period. */
    public List<String> signingSecrets(Instant now) {
        if (previousSecret != null && previousSecretExpiresAt != null && now.isBefore(previousSecretExpiresAt)) {
            return List.of(secret, previousSecret);
        }
        return List.of(secret);
    }

    /** Exact names, {@code prefix.*}, or {@code *}. */
    public boolean subscribesTo(String eventType) {
        for (String filter : eventTypes) {
            if (filter.equals("*") || filter.equals(eventType)
                    || (filter.endsWith(".*") && eventType.startsWith(filter.substring(0, filter.length() - 1)))) {
                return true;
            }
        }
        return false;
    }
}
