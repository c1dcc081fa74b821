package dev.relaybox.workflows.outbound;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code outbox_events.status}. A row is PENDING until the dispatcher starts its workflow (DISPATCHED), PROCESSED
 * once no delivery of it is left to attempt, and QUARANTINED when it can never start a workflow. Replaying a dead
 * letter, or enabling an endpoint with paused deliveries, makes a row PENDING again.
 */
public enum OutboxStatus {
    PENDING,
    DISPATCHED,
    PROCESSED,
    QUARANTINED;

    /** The allowed transitions, written once: every guarded UPDATE on the column follows from this table. */
    private static final Map<OutboxStatus, Set<OutboxStatus>> NEXT = Map.of(
            PENDING, EnumSet.of(DISPATCHED, PROCESSED, QUARANTINED),
            DISPATCHED, EnumSet.of(PENDING, PROCESSED, QUARANTINED),
            PROCESSED, EnumSet.of(PENDING),
            QUARANTINED, EnumSet.of(PENDING));

    public boolean canBecome(OutboxStatus next) {
        return NEXT.get(this).contains(next);
    }

    /** The statuses a row may be in to move to {@code next}, as the names a guarded UPDATE binds. */
    public static String[] before(OutboxStatus next) {
        return EnumSet.allOf(OutboxStatus.class).stream()
                .filter(s -> s.canBecome(next))
                .map(Enum::name)
                .toArray(String[]::new);
    }
}
