package dev.relaybox.workflows.outbound;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code deliveries.status}: one outbox row to one endpoint. PENDING and RETRYING are attempted; PAUSED waits for
 * its endpoint to be enabled; DELIVERED, DEAD_LETTERED and CANCELLED are finished, and only a dead letter's replay
 * brings one back (DEAD_LETTERED to PENDING). CANCELLED is written by nothing now (releases up to 0.1 had a cancel
 * signal); the column still allows it, so rows from then read and purge like any finished delivery.
 */
public enum DeliveryStatus {
    PENDING,
    RETRYING,
    PAUSED,
    DELIVERED,
    DEAD_LETTERED,
    CANCELLED;

    /** The allowed transitions, written once: every guarded UPDATE on the column follows from this table. */
    private static final Map<DeliveryStatus, Set<DeliveryStatus>> NEXT = Map.of(
            PENDING, EnumSet.of(RETRYING, PAUSED, DELIVERED, DEAD_LETTERED, CANCELLED),
            RETRYING, EnumSet.of(RETRYING, PAUSED, DELIVERED, DEAD_LETTERED, CANCELLED),
            PAUSED, EnumSet.of(PENDING),
            DELIVERED, EnumSet.noneOf(DeliveryStatus.class),
            DEAD_LETTERED, EnumSet.of(PENDING),
            CANCELLED, EnumSet.noneOf(DeliveryStatus.class));

    public boolean canBecome(DeliveryStatus next) {
        return NEXT.get(this).contains(next);
    }

    /** Still to be attempted: a delivery that can still be delivered. */
    public boolean attemptable() {
        return canBecome(DELIVERED);
    }

    /** Nothing more will happen to it unless an operator replays it. */
    public boolean finished() {
        return this == DELIVERED || this == DEAD_LETTERED || this == CANCELLED;
    }

    /** The statuses a delivery may be in to move to {@code next}, as the names a guarded UPDATE binds. */
    public static String[] before(DeliveryStatus next) {
        return EnumSet.allOf(DeliveryStatus.class).stream()
                .filter(s -> s.canBecome(next))
                .map(Enum::name)
                .toArray(String[]::new);
    }

    /** The statuses of deliveries still to be attempted. */
    public static String[] attemptableNames() {
        return before(DELIVERED);
    }

    /** The statuses of finished deliveries. */
    public static String[] finishedNames() {
        return EnumSet.allOf(DeliveryStatus.class).stream()
                .filter(DeliveryStatus::finished)
                .map(Enum::name)
                .toArray(String[]::new);
    }
}
