package dev.relaybox.producer;

import java.sql.SQLException;

/** The database refused an outbox row; the caller's transaction should roll back with it. */
public final class OutboxWriteException extends RuntimeException {
    OutboxWriteException(OutboxEvent event, SQLException cause) {
        super(
                "could not enqueue " + event.eventType() + " for " + event.aggregateType() + ":" + event.aggregateId()
                        + ": " + cause.getMessage(),
                cause);
    }
}
