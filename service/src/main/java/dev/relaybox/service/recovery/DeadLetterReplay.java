package dev.relaybox.service.recovery;

import dev.relaybox.service.api.Json;
import dev.relaybox.store.AuditLogStore;
import dev.relaybox.store.DeadLetterFilter;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterState;
import dev.relaybox.store.DeadLetterStore;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.InboxStore;
import dev.relaybox.store.OutboxStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays dead letters through the normal path: the source row goes back to pending and undispatched, the
 * dispatcher starts a fresh workflow for it, and the dead letter is resolved with who and when, all in one
 * transaction. A dead letter being replayed is no longer open, so a second replay finds nothing to do and
 * cannot deliver twice; if the replay fails again, a new dead letter records it. A replay of one dead letter may carry
 * a corrected payload, which {@link DeadLetterEdits} puts in place in the same transaction. Every replay and discard,
 * with its correction, is appended to the audit log in that transaction too; each entry's seal is logged once it
 * committed, so the log system holds seals the chain can later be checked against.
 */
public final class DeadLetterReplay {
    /** The most dead letters one replay takes: a bulk replay or an endpoint's recovery goes in batches of it. */
    public static final int MAX_BATCH = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterReplay.class);

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
    public Result replayCorrected(UUID id, String by, PayloadCorrection correction) {
        return replay(DeadLetterFilter.none(), id, 1, by, correction);
    }

    private Result replay(DeadLetterFilter filter, UUID onlyId, int limit, String by, PayloadCorrection correction) {
        List<AuditLogStore.Sealed> sealed = new ArrayList<>();
        Result result = jdbi.inTransaction(h -> {
            sealed.clear();
            DeadLetterStore store = h.attach(DeadLetterStore.class);
            List<DeadLetterStore.Row> chosen = store.lockOpen(filter, onlyId, limit);
            List<DeadLetterStore.Row> replayable = chosen.stream()
                    .filter(row -> !Boolean.FALSE.equals(row.endpointEnabled()))
                    .toList();
            for (DeadLetterStore.Row row : replayable) {
                Map<String, Object> details = audited(row);
                if (correction != null) {
                    details.put("edit", edits.apply(h, row, correction));
                }
                sealed.add(
                        h.attach(AuditLogStore.class).append(by, "dead_letter.replayed", row.id(), Json.text(details)));
            }
            store.resolve(
                    replayable.stream().map(DeadLetterStore.Row::id).toList(), DeadLetterState.REPLAYED, by, null);
            resetDeliveries(h, references(replayable, DeadLetterSource.OUTBOX));
            resetInboxEvents(h, references(replayable, DeadLetterSource.INBOX));
            int remaining = onlyId == null ? store.countOpen(filter) : 0;
            return new Result(replayable.size(), chosen.size() - replayable.size(), remaining);
        });
        sealed.forEach(DeadLetterReplay::logSeal);
        if (result.replayed() > 0) {
            wakeDispatcher.run();
        }
        return result;
    }

    public boolean discard(UUID id, String by, String reason) {
        Optional<AuditLogStore.Sealed> sealed = jdbi.inTransaction(h -> {
            DeadLetterStore store = h.attach(DeadLetterStore.class);
            Optional<DeadLetterStore.Row> open =
                    store.lockOpen(DeadLetterFilter.none(), id, 1).stream().findFirst();
            if (open.isEmpty() || store.resolve(List.of(id), DeadLetterState.DISCARDED, by, reason) != 1) {
                return Optional.empty();
            }
            Map<String, Object> details = audited(open.get());
            details.put("why", reason);
            return Optional.of(
                    h.attach(AuditLogStore.class).append(by, "dead_letter.discarded", id, Json.text(details)));
        });
        sealed.ifPresent(DeadLetterReplay::logSeal);
        return sealed.isPresent();
    }

    /** What the audit log keeps of a dead letter, which retention will remove. */
    private static Map<String, Object> audited(DeadLetterStore.Row row) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("source", row.source());
        details.put("reference", row.reference());
        details.put("outboxId", row.outboxId());
        details.put("eventType", row.eventType());
        details.put("peer", row.peer());
        details.put("reason", row.reason());
        return details;
    }

    private static void logSeal(AuditLogStore.Sealed entry) {
        LOG.info("audit log entry {} sealed {}", entry.seq(), entry.hash());
    }

    private static List<UUID> references(List<DeadLetterStore.Row> chosen, DeadLetterSource source) {
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
