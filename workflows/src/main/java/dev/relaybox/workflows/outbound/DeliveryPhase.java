package dev.relaybox.workflows.outbound;

import java.util.Locale;

/**
 * What a delivery workflow shows of one delivery: its stored {@link DeliveryStatus}, plus two steps only the
 * workflow sees (SENDING an attempt, WAITING for the endpoint's controls). Declared in the order the workflow's
 * overall status picks them: the first phase any delivery is in is the workflow's ({@link #overall}).
 */
public enum DeliveryPhase {
    RETRYING(DeliveryStatus.RETRYING),
    WAITING(null),
    SENDING(null),
    PENDING(DeliveryStatus.PENDING),
    DEAD_LETTERED(DeliveryStatus.DEAD_LETTERED),
    PAUSED(DeliveryStatus.PAUSED),
    CANCELLED(DeliveryStatus.CANCELLED),
    DELIVERED(DeliveryStatus.DELIVERED);

    private final DeliveryStatus stored;

    DeliveryPhase(DeliveryStatus stored) {
        this.stored = stored;
    }

    /** The status column's value this phase stands for, or null for a step only the workflow sees. */
    public DeliveryStatus stored() {
        return stored;
    }

    /** How queries and the {@code RelayStatus} search attribute write it: the lower-case name. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The workflow's status over its deliveries: one being sent counts as pending, none at all as delivered. */
    public static DeliveryPhase overall(Iterable<DeliveryPhase> phases) {
        DeliveryPhase first = DELIVERED;
        for (DeliveryPhase phase : phases) {
            if (phase.ordinal() < first.ordinal()) {
                first = phase;
            }
        }
        return first == SENDING ? PENDING : first;
    }
}
