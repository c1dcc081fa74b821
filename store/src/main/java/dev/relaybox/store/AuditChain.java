package dev.relaybox.store;

import java.time.Instant;
import java.util.function.Consumer;

/**
 * Checks the audit log's chain entry by entry, as {@link AuditLogStore#readChain} streams it: numbered from 1 without
 * a gap, each chained to the seal before it, each content still matching its seal. A chain rewritten from some entry
 * on, seals and all, or cut short at its end, is consistent in itself: a seal recorded earlier (the service logs each
 * one as it commits) must then still be found in it.
 */
public final class AuditChain implements Consumer<AuditLogStore.Link> {
    /** The outcome: {@code problem} is null when the chain is intact. */
    public record Verdict(long entries, Instant lastRecordedAt, String head, String problem) {
        public boolean intact() {
            return problem == null;
        }
    }

    private final String expectedSeal;
    private long entries;
    private String head = AuditLogStore.GENESIS;
    private Instant lastRecordedAt;
    private boolean expectedSealSeen;
    private String problem;

    /** {@code expectedSeal}: a seal recorded earlier that the chain must still hold, or null. */
    public AuditChain(String expectedSeal) {
        this.expectedSeal = expectedSeal;
    }

    @Override
    public void accept(AuditLogStore.Link link) {
        if (problem != null) {
            return;
        }
        long expectedSeq = entries + 1;
        String entry = "entry " + link.seq() + " (" + link.action() + ", " + link.recordedAt() + ")";
        if (link.seq() != expectedSeq) {
            problem = "entry " + expectedSeq + " is missing: the next one is " + link.seq();
        } else if (!link.previousHash().equals(head)) {
            problem = entry + " does not chain to the entry before it";
        } else if (!link.hash().equals(link.recomputed())) {
            problem = entry + " was altered: what it holds no longer matches its seal";
        } else {
            entries = link.seq();
            head = link.hash();
            lastRecordedAt = link.recordedAt();
            expectedSealSeen |= link.hash().equals(expectedSeal);
        }
    }

    public Verdict verdict() {
        String found = problem;
        if (found == null && expectedSeal != null && !expectedSealSeen) {
            found = "the seal " + expectedSeal + " is not in the chain: the entries up to it were rewritten or removed";
        }
        return new Verdict(entries, lastRecordedAt, head, found);
    }
}
