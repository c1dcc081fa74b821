package dev.relaybox.activities.deadletter;

import dev.relaybox.activities.RedactedUrl;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.DeadLetterStore;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records dead letters for both directions. Every new one raises an alert: one ERROR log line with the
 * ids and the reason, plus whatever the {@link DeadLetterListener} does (metrics, an alert event).
 */
public final class DeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    /**
     * @param peer the endpoint URL (outbound; kept as scheme, host and port only) or partner name (inbound)
     */
    public record DeadLetter(
            UUID id,
            DeadLetterSource source,
            UUID reference,
            String peer,
            String eventType,
            String reason,
            String lastError,
            int attempts) {}

    /** Told about each new dead letter. Implementations must not throw. */
    public interface DeadLetterListener {
        /** Inside the transaction that records it: work that must commit with it, or not at all. */
        default void recorded(Handle handle, DeadLetter deadLetter) {}

        /** After that transaction committed. */
        default void created(DeadLetter deadLetter) {}
    }

    private final DeadLetterListener listener;

    public DeadLetters(DeadLetterListener listener) {
        this.listener = listener;
    }

    public static DeadLetters loggingOnly() {
        return new DeadLetters(new DeadLetterListener() {});
    }

    /**
     * Inserts the dead letter on the caller's transaction; a second open one for the same reference is
     * ignored. Returns it when this call created it; pass it to {@link #announce} after commit.
     */
    public Optional<DeadLetter> record(
            Handle handle,
            DeadLetterSource source,
            UUID reference,
            String peer,
            String eventType,
            String reason,
            String lastError,
            int attempts) {
        Optional<DeadLetter> created = handle.attach(DeadLetterStore.class)
                .insertOpen(source, reference, reason, lastError, attempts)
                .map(id -> new DeadLetter(
                        id, source, reference, shown(source, peer), eventType, reason, lastError, attempts));
        created.ifPresent(deadLetter -> listener.recorded(handle, deadLetter));
        return created;
    }

    /** Log lines and alerts name an endpoint by its host: its path and query may hold the receiver's token. */
    private static String shown(DeadLetterSource source, String peer) {
        return source == DeadLetterSource.OUTBOX ? RedactedUrl.of(peer) : peer;
    }

    /** Call after the transaction that recorded it committed. */
    public void announce(DeadLetter deadLetter) {
        LOG.error(
                "dead-lettered {} {} ({} {} {}) after {} attempts: {}; last error: {}; dead letter {}",
                deadLetter.source(),
                deadLetter.reference(),
                deadLetter.eventType(),
                deadLetter.source() == DeadLetterSource.OUTBOX ? "to" : "from",
                deadLetter.peer(),
                deadLetter.attempts(),
                deadLetter.reason(),
                deadLetter.lastError(),
                deadLetter.id());
        try {
            listener.created(deadLetter);
        } catch (RuntimeException e) {
            LOG.warn("dead letter {} recorded, but its alert failed", deadLetter.id(), e);
        }
    }
}
