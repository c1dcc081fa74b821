package dev.relaybox.producer;

import java.sql.SQLException;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The producer side of the transactional outbox for JDBI. Call {@link #enqueue} on the handle of the transaction
 * that makes the business change: both commit together or neither does. Relaybox's dispatcher is woken by a
 * trigger on commit and delivers the row later, at least once. Writes through {@link JdbcOutbox} on the handle's
 * connection, so both kinds of producer share one implementation.
 */
public final class Outbox {
    private Outbox() {}

    /**
     * Writes the row on the caller's handle and returns its id, which receivers see as {@code webhook-id}.
     *
     * @throws IllegalArgumentException for a {@code relaybox.*} event type: those are Relaybox's own
     */
    public static UUID enqueue(Handle handle, OutboxEvent event) {
        try {
            return JdbcOutbox.enqueue(handle.getConnection(), event);
        } catch (SQLException e) {
            throw new OutboxWriteException(event, e);
        }
    }

    /** {@link JdbcOutbox#enqueueRelayboxEvent} on the handle's connection: for Relaybox's own alerts. */
    public static UUID enqueueRelayboxEvent(Handle handle, OutboxEvent event) {
        try {
            return JdbcOutbox.enqueueRelayboxEvent(handle.getConnection(), event);
        } catch (SQLException e) {
            throw new OutboxWriteException(event, e);
        }
    }

    /** {@link JdbcOutbox#enqueueIdempotent} on the handle's connection. */
    public static IdempotentEnqueue enqueueIdempotent(
            Handle handle, OutboxEvent event, String key, String requestHash) {
        try {
            return JdbcOutbox.enqueueIdempotent(handle.getConnection(), event, key, requestHash);
        } catch (SQLException e) {
            throw new OutboxWriteException(event, e);
        }
    }
}
