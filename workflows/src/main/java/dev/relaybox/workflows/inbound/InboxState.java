package dev.relaybox.workflows.inbound;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where an inbox event stands: the {@code webhook_inbox.status} column (the constant's name) and the
 * {@code RelayStatus} search attribute of its workflow ({@link #searchValue()}). The allowed moves are written once,
 * here; every guarded UPDATE of the column starts from {@link #from()} of the state it moves to.
 */
public enum InboxState {
    /** Stored by the intake, not decided yet. */
    RECEIVED("pending"),
    /** An earlier event is missing; decided again at a release or the next recheck. */
    DEFERRED("deferred"),
    /** Applied, or ignored as stale. */
    PROCESSED("processed"),
    /** Can never apply or could not be processed; a dead letter says why. */
    QUARANTINED("dead_lettered");

    // A deferred event may be deferred again (with a new reason); a quarantined one returns to RECEIVED only when
    // its dead letter is replayed; a processed one never moves.
    private static final Map<InboxState, Set<InboxState>> NEXT = Map.of(
            RECEIVED, EnumSet.of(DEFERRED, PROCESSED, QUARANTINED),
            DEFERRED, EnumSet.of(DEFERRED, PROCESSED, QUARANTINED),
            PROCESSED, EnumSet.noneOf(InboxState.class),
            QUARANTINED, EnumSet.of(RECEIVED));

    private final String searchValue;

    InboxState(String searchValue) {
        this.searchValue = searchValue;
    }

    /** The value shown in the workflow's {@code RelayStatus} search attribute and {@code status()} query. */
    public String searchValue() {
        return searchValue;
    }

    public boolean canMoveTo(InboxState next) {
        return NEXT.get(this).contains(next);
    }

    /** The states a row may be in for a guarded update to move it to this one. */
    public List<InboxState> from() {
        return Arrays.stream(values()).filter(state -> state.canMoveTo(this)).toList();
    }

    /** No decision can change it any more (only replaying its dead letter reopens a quarantined row). */
    public boolean finished() {
        return !canMoveTo(PROCESSED);
    }

    /** The states still to be decided: where a decision counts an attempt or a deferral is recorded. */
    public static List<InboxState> unfinished() {
        return PROCESSED.from();
    }

    /** The column values of {@code states}, for binding as a SQL array ({@code status = ANY(:states)}). */
    public static String[] names(List<InboxState> states) {
        return states.stream().map(Enum::name).toArray(String[]::new);
    }
}
