package dev.relaybox.activities.inbound;

import java.time.Duration;
import java.util.Objects;

/**
 * How long deferred inbox events wait.
 *
 * @param recheckInterval how often a deferred event decides again without a release signal; a safety net, since a
 *                        release normally comes as soon as the missing event applies
 * @param maxDeferral     how long an event may stay deferred before it is dead-lettered with the missing event as
 *                        reason; measured from the first deferral of the running workflow
 */
public record InboxSettings(Duration recheckInterval, Duration maxDeferral) {
    public InboxSettings {
        Objects.requireNonNull(recheckInterval, "recheckInterval");
        Objects.requireNonNull(maxDeferral, "maxDeferral");
        if (recheckInterval.isNegative() || recheckInterval.isZero()) {
            throw new IllegalArgumentException("recheckInterval must be positive, was " + recheckInterval);
        }
        if (maxDeferral.isNegative()) {
            throw new IllegalArgumentException("maxDeferral must not be negative, was " + maxDeferral);
        }
    }

    /** Recheck every 5 minutes; dead-letter after 24 hours deferred. */
    public static InboxSettings defaults() {
        return new InboxSettings(Duration.ofMinutes(5), Duration.ofHours(24));
    }
}
