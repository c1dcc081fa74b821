package dev.relaybox.store;

import dev.relaybox.workflows.inbound.InboxPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * How long deferred inbox events wait.
 *
 * @param recheckInterval how often a deferred event decides again without a release signal; a safety net, since a
 *                        release normally comes as soon as the missing event applies
 * @param maxDeferral     how long an event may stay deferred before it is dead-lettered with the missing event as
 *                        reason; measured from the row's first deferral ({@code deferred_since})
 */
public record InboxSettings(Duration recheckInterval, Duration maxDeferral) {
    /**
     * Every recheck is a database transaction and a workflow task per deferred event, and grows its history (the
     * workflow continues as new to stay within Temporal's limits). A week at one recheck a minute is about 10,000.
     */
    public static final long MAX_RECHECKS = 20_000;

    public InboxSettings {
        Objects.requireNonNull(recheckInterval, "recheckInterval");
        Objects.requireNonNull(maxDeferral, "maxDeferral");
        if (recheckInterval.isNegative() || recheckInterval.isZero()) {
            throw new IllegalArgumentException("recheckInterval must be positive, was " + recheckInterval);
        }
        if (maxDeferral.isNegative()) {
            throw new IllegalArgumentException("maxDeferral must not be negative, was " + maxDeferral);
        }
        long rechecks = maxDeferral.toMillis() / recheckInterval.toMillis();
        if (rechecks > MAX_RECHECKS) {
            throw new IllegalArgumentException("a deferral of up to " + words(maxDeferral) + " rechecked every "
                    + words(recheckInterval) + " takes " + rechecks + " rechecks, more than " + MAX_RECHECKS
                    + "; raise recheckInterval to at least "
                    + words(maxDeferral.dividedBy(MAX_RECHECKS).plusSeconds(1).withNanos(0)) + " or lower maxDeferral");
        }
    }

    /**
     * The plan an inbox workflow carries out for a row, with these settings: made by its first workflow task, or by
     * the dispatcher that claims the row and hands it to the start.
     *
     * @param aggregate     {@code type:id}, or null when the event lacks either
     * @param deferredSince when the row's current deferral began, or null
     */
    public InboxPlan plan(String partner, String eventType, String aggregate, Instant deferredSince) {
        return new InboxPlan(
                partner, eventType, aggregate, recheckInterval, maxDeferral, deferredSince, InboxPlan.CURRENT);
    }

    private static String words(Duration duration) {
        return duration.toString().substring(2).toLowerCase();
    }

    /** Recheck every 5 minutes; dead-letter after 24 hours deferred. */
    public static InboxSettings defaults() {
        return new InboxSettings(Duration.ofMinutes(5), Duration.ofHours(24));
    }
}
