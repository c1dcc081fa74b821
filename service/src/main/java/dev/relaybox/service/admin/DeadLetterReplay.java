package dev.relaybox.service.admin;

import dev.relaybox.activities.deadletter.DeadLetters.Source;
import dev.relaybox.activities.inbound.InboxStore;
import dev.relaybox.activities.outbound.DeliveryStore;
import dev.relaybox.activities.outbound.OutboxStore;
import dev.relaybox.activities.store.DeadLetterFilter;
import dev.relaybox.activities.store.DeadLetterState;
import dev.relaybox.activities.store.DeadLetterStore;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Replays dead letters through the normal path: the source row goes back to pending and undispatched, the
 * dispatcher starts a fresh workflow for it, and the dead letter is resolved with who and when, all in one
 * transaction. A dead letter being replayed is no longer open, so a second replay finds nothing to do and
 * cannot deliver twice; if the replay fails again, a new dead letter records it. A replay of one dead letter may carry
 * a corrected payload, which {@link DeadLetterEdits} puts in place in the same transaction.
 */
public final class DeadLetterReplay {
    /**
     * How many were replayed, how many were left because their endpoint is disabled, and how many open ones the
     * filter still matches (beyond the batch, or skipped).
     */
    public record Result(int replayed, int skippedDisabledEndpoint, int remaining) {}

    private final Jdbi jdbi;
    private final Runnable wakeDispatcher;
    private final DeadLetterEdits edits;

    public DeadLetterReplay(Jdbi jdbi, Runnable wakeDispatcher, DeadLetterEdits edits) {
        this.jdbi = jdbi;
        this.wakeDispatcher = wakeDispatcher;
        this.edits = edits;
    }

    public Result replay(DeadLetterFilter filter, UUID onlyId, int limit, String by) {
        return replay(filter, onlyId, limit, by, null);
    }

    /** Replays one dead letter with its source row's payload replaced by {@code correction}'s, or not at all. */
    Result replayCorrected(UUID id, String by, PayloadCorrection correction) {
        return replay(DeadLetterFilter.none(), id, 1, by, correction);
    }

    private Result replay(DeadLetterFilter filter, UUID onlyId, int limit, String by, PayloadCorrection correction) {
        Result result = jdbi.inTransaction(h -> {
            DeadLetterStore store = h.attach(DeadLetterStore.class);
            List<DeadLetterStore.Row> chosen = store.lockOpen(filter, onlyId, limit);
            List<DeadLetterStore.Row> replayable = chosen.stream()
                    .filter(row -> !Boolean.FALSE.equals(row.endpointEnabled()))
                    .toList();
            if (correction != null) {
                replayable.forEach(row -> edits.apply(h, row, correction));
            }
            store.resolve(
                    replayable.stream().map(DeadLetterStore.Row::id).toList(), DeadLetterState.REPLAYED, by, null);
            resetDeliveries(h, references(replayable, Source.OUTBOX));
            resetInboxEvents(h, references(replayable, Source.INBOX));
            int remaining = onlyId == null ? store.countOpen(filter) : 0;
            return new Result(replayable.size(), chosen.size() - replayable.size(), remaining);
        });
        if (result.replayed() > 0) {
            wakeDispatcher.run();
        }
        return result;
    }

    boolean discard(UUID id, String by, String reason) {
        return jdbi.withExtension(
                DeadLetterStore.class, store -> store.resolve(List.of(id), DeadLetterState.DISCARDED, by, reason) == 1);
    }

    private static List<UUID> references(List<DeadLetterStore.Row> chosen, Source source) {
        return chosen.stream()
                .filter(row -> row.source() == source)
                .map(DeadLetterStore.Row::reference)
                .toList();
    }

    private static void resetDeliveries(Handle h, List<UUID> references) {
        h.attach(DeliveryStore.class).resetForReplay(references);
        h.attach(OutboxStore.class).undispatchForReplay(references);
    }

    private static void resetInboxEvents(Handle h, List<UUID> inboxIds) {
        h.attach(InboxStore.class).reopenQuarantined(inboxIds);
    }
}
