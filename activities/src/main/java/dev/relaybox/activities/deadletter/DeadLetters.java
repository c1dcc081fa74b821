package dev.relaybox.activities.deadletter;

import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records dead letters for both directions. Every new one raises an alert: one ERROR log line with the
 * ids and the reason, and whatever {@link DeadLetterListener} the service registers (metrics, alert webhooks).
 */
public final class DeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    public enum Source { OUTBOX, INBOX }

    public record DeadLetter(UUID id, Source source, UUID reference, String peer, String eventType, String reason,
            String lastError, int attempts) {}

    /** Told about each dead letter after it committed. Must not throw. */
    public interface DeadLetterListener {
        void created(DeadLetter deadLetter);
    }

    private final DeadLetterListener listener;

    public DeadLetters(DeadLetterListener listener) {
        this.listener = listener;
    }

    public static DeadLetters loggingOnly() {
        return new DeadLetters(deadLetter -> {});
    }

    /**
     * Inserts the dead letter on the caller's transaction; a second open one for the same reference is
     * ignored. Returns it when this call created it.
     */
    public java.util.Optional<DeadLetter> record(Handle handle, Source source, UUID reference, String peer,
            String eventType, String reason, String lastError, int attempts) {
        return handle.createQuery("""
                        INSERT INTO dead_letters (source, reference, reason, last_error, attempts)
                        VALUES (:source, :reference, :reason, :lastError, :attempts)
                        ON CONFLICT (source, reference) WHERE resolved_at IS NULL DO NOTHING
                        RETURNING id""")
                .bind("source", source.name())
                .bind("reference", reference)
                .bind("reason", reason)
                .bind("lastError", lastError)
                .bind("attempts", attempts)
                .mapTo(UUID.class)
                .findOne()
                .map(id -> new DeadLetter(id, source, reference, peer, eventType, reason, lastError, attempts));
    }

    /** Call after the transaction that recorded it committed. */
    public void announce(DeadLetter deadLetter) {
        LOG.error("dead letter {}: {} {} ({} to/from {}) after {} attempts: {}; last error: {}", deadLetter.id(),
                deadLetter.source(), deadLetter.reference(), deadLetter.eventType(), deadLetter.peer(),
                deadLetter.attempts(), deadLetter.reason(), deadLetter.lastError());
        try {
            listener.created(deadLetter);
        } catch (RuntimeException e) {
            LOG.warn("dead letter {} recorded, but its alert failed", deadLetter.id(), e);
        }
    }
}
