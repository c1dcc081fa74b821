package dev.relaybox.service.admin;

import dev.relaybox.activities.outbound.DeliveryStore;
import dev.relaybox.activities.outbound.OutboxStore;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Replays dead letters through the normal path: the source row goes back to pending and undispatched, the
 * dispatcher starts a fresh workflow for it, and the dead letter is resolved with who and when, all in one
 * transaction. A dead letter being replayed is no longer open, so a second replay finds nothing to do and
 * cannot deliver twice; if the replay fails again, a new dead letter records it.
 */
final class DeadLetterReplay {
    /** How many were replayed, and how many were left because their endpoint is disabled. */
    record Result(int replayed, int skippedDisabledEndpoint) {}

    private final Jdbi jdbi;
    private final Runnable wakeDispatcher;

    DeadLetterReplay(Jdbi jdbi, Runnable wakeDispatcher) {
        this.jdbi = jdbi;
        this.wakeDispatcher = wakeDispatcher;
    }

    Result replay(DeadLetterFilter filter, UUID onlyId, String by) {
        Result result = jdbi.inTransaction(h -> {
            List<Chosen> chosen = filter.bind(h.createQuery("SELECT dl.id, dl.source, dl.reference, e.enabled "
                            + DeadLetterFilter.FROM + DeadLetterFilter.WHERE + """
                               AND dl.resolved_at IS NULL
                               AND (CAST(:onlyId AS uuid) IS NULL OR dl.id = :onlyId)
                               FOR UPDATE OF dl SKIP LOCKED"""))
                    .bind("onlyId", onlyId)
                    .map((rs, ctx) -> new Chosen(rs.getObject("id", UUID.class), rs.getString("source"),
                            rs.getObject("reference", UUID.class), (Boolean) rs.getObject("enabled")))
                    .list();
            List<Chosen> replayable = chosen.stream().filter(c -> !Boolean.FALSE.equals(c.endpointEnabled())).toList();
            resolve(h, replayable, by);
            resetDeliveries(h, references(replayable, "OUTBOX"));
            resetInboxEvents(h, references(replayable, "INBOX"));
            return new Result(replayable.size(), chosen.size() - replayable.size());
        });
        if (result.replayed() > 0) {
            wakeDispatcher.run();
        }
        return result;
    }

    boolean discard(UUID id, String by, String reason) {
        return jdbi.withHandle(h -> h.createUpdate("""
                        UPDATE dead_letters SET resolved_at = now(), resolved_by = :by, resolution = :resolution
                         WHERE id = :id AND resolved_at IS NULL""")
                .bind("id", id).bind("by", by).bind("resolution", "DISCARDED: " + reason)
                .execute() == 1);
    }

    private record Chosen(UUID id, String source, UUID reference, Boolean endpointEnabled) {}

    private static List<UUID> references(List<Chosen> chosen, String source) {
        return chosen.stream().filter(c -> c.source().equals(source)).map(Chosen::reference).toList();
    }

    private static void resolve(Handle h, List<Chosen> chosen, String by) {
        h.createUpdate("""
                        UPDATE dead_letters SET resolved_at = now(), resolved_by = :by, resolution = 'REPLAYED'
                         WHERE id = ANY(:ids)""")
                .bind("by", by)
                .bindArray("ids", UUID.class, chosen.stream().map(Chosen::id).toList())
                .execute();
    }

    private static void resetDeliveries(Handle h, List<UUID> references) {
        h.attach(DeliveryStore.class).resetForReplay(references);
        h.attach(OutboxStore.class).undispatchForReplay(references);
    }

    private static void resetInboxEvents(Handle h, List<UUID> inboxIds) {
        h.createUpdate("""
                        UPDATE webhook_inbox SET status = 'RECEIVED', outcome = NULL, attempts = 0, defer_reason = NULL,
                               last_error = NULL, processed_at = NULL, dispatched_at = NULL, deferred_since = NULL
                         WHERE id = ANY(:ids) AND status = 'QUARANTINED'""")
                .bindArray("ids", UUID.class, inboxIds)
                .execute();
    }
}
