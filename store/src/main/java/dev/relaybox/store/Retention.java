package dev.relaybox.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;

/**
 * Deletes finished rows once they are older than their kind's age, in small batches, each its own short
 * transaction that skips rows another transaction holds ({@code FOR UPDATE SKIP LOCKED}), so retention never
 * waits on, or holds up, live work.
 *
 * <p>Finished means: an outbox event that is PROCESSED, all of whose deliveries are finished, together with those
 * deliveries and their attempts; an inbox event that is PROCESSED; a dead letter that is resolved (replayed or
 * discarded). A row any dead letter still refers to is kept until that dead letter is purged itself, so an open
 * dead letter keeps its whole story and a closed one never points at nothing. Open dead letters, deferred and
 * quarantined inbox events, unfinished outbox events and deliveries, endpoints and entities are never deleted.
 * Ages count from the time a row finished ({@code processed_at}, {@code resolved_at}), read against
 * {@link #clock}.
 */
public final class Retention {
    /** How long each kind of finished row is kept; {@link Duration#ZERO} keeps it forever. */
    public record Ages(Duration deliveredOutbox, Duration processedInbox, Duration closedDeadLetters) {
        public static final Ages FOREVER = new Ages(Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }

    /** Rows deleted, per table. */
    public record Purged(int outboxEvents, int deliveries, int deliveryAttempts, int inboxEvents, int deadLetters) {
        public static final Purged NONE = new Purged(0, 0, 0, 0, 0);

        Purged plus(Purged other) {
            return new Purged(
                    outboxEvents + other.outboxEvents,
                    deliveries + other.deliveries,
                    deliveryAttempts + other.deliveryAttempts,
                    inboxEvents + other.inboxEvents,
                    deadLetters + other.deadLetters);
        }

        public int total() {
            return outboxEvents + deliveries + deliveryAttempts + inboxEvents + deadLetters;
        }
    }

    private final Jdbi jdbi;
    private final Clock clock;

    public Retention(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** Purges every kind, batch after batch, until no batch is full; returns what it deleted. */
    public Purged purge(Ages ages, int batchSize) {
        Instant now = clock.instant();
        Purged total = Purged.NONE;
        // Dead letters first: purging one can make the rows it referred to purgeable in the same pass.
        if (!ages.closedDeadLetters().isZero()) {
            total = total.plus(
                    repeat(batchSize, () -> purgeClosedDeadLetters(now.minus(ages.closedDeadLetters()), batchSize)));
        }
        if (!ages.deliveredOutbox().isZero()) {
            total = total.plus(
                    repeat(batchSize, () -> purgeFinishedOutbox(now.minus(ages.deliveredOutbox()), batchSize)));
        }
        if (!ages.processedInbox().isZero()) {
            total = total.plus(
                    repeat(batchSize, () -> purgeProcessedInbox(now.minus(ages.processedInbox()), batchSize)));
        }
        return total;
    }

    private interface Batch {
        /** Purges one batch; returns what it deleted and how many rows of the kind it picked. */
        Picked run();
    }

    private record Picked(int rows, Purged purged) {}

    private static Purged repeat(int batchSize, Batch batch) {
        Purged total = Purged.NONE;
        Picked picked;
        do {
            picked = batch.run();
            total = total.plus(picked.purged());
        } while (picked.rows() == batchSize);
        return total;
    }

    Picked purgeClosedDeadLetters(Instant resolvedBefore, int batchSize) {
        int deleted = jdbi.inTransaction(h -> h.attach(DeadLetterStore.class).purgeResolved(resolvedBefore, batchSize));
        return new Picked(deleted, new Purged(0, 0, 0, 0, deleted));
    }

    Picked purgeFinishedOutbox(Instant processedBefore, int batchSize) {
        OutboxStore.Purged purged =
                jdbi.inTransaction(h -> h.attach(OutboxStore.class).purgeFinished(processedBefore, batchSize));
        return new Picked(
                purged.outboxEvents(),
                new Purged(purged.outboxEvents(), purged.deliveries(), purged.deliveryAttempts(), 0, 0));
    }

    Picked purgeProcessedInbox(Instant processedBefore, int batchSize) {
        int deleted = jdbi.inTransaction(h -> h.attach(InboxStore.class).purgeProcessed(processedBefore, batchSize));
        return new Picked(deleted, new Purged(0, 0, 0, deleted, 0));
    }
}
