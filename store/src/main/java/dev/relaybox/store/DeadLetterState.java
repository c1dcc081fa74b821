package dev.relaybox.store;

import java.time.Instant;

/**
 * Where a dead letter stands. It is open until an operator replays or discards it; both ends are final, so a
 * second replay or discard of the same dead letter changes nothing. Stored as {@code resolved_at} (null while
 * open) and {@code resolution}: {@code REPLAYED}, or {@code DISCARDED: <reason>}.
 */
public enum DeadLetterState {
    OPEN,
    REPLAYED,
    DISCARDED;

    /** The only transitions: from open to either end. */
    public boolean canBecome(DeadLetterState next) {
        return this == OPEN && next != OPEN;
    }

    /** The {@code resolution} column's text for a dead letter that reached this state. */
    public String resolution(String reason) {
        return switch (this) {
            case OPEN -> throw new IllegalStateException("an open dead letter has no resolution");
            case REPLAYED -> name();
            case DISCARDED -> name() + ": " + reason;
        };
    }

    /** Reads the state back from its two columns. */
    public static DeadLetterState of(Instant resolvedAt, String resolution) {
        if (resolvedAt == null) {
            return OPEN;
        }
        return resolution != null && resolution.startsWith(DISCARDED.name()) ? DISCARDED : REPLAYED;
    }
}
