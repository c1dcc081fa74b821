package dev.relaybox.producer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;

/**
 * The producer side of the transactional outbox on a plain JDBC {@link Connection} (Spring, Hibernate, jOOQ and
 * the like all expose the connection of their transaction). Call {@link #enqueue} on the connection of the
 * transaction that makes the business change: both commit together or neither does. Relaybox delivers the row
 * after commit, at least once. This class neither commits nor rolls back: the transaction is the caller's.
 *
 * <p>Every enqueue in Relaybox, including {@link Outbox}'s for JDBI handles, writes through this class, so a rule
 * about which events may be enqueued belongs here.
 */
public final class JdbcOutbox {
    /** Event types Relaybox emits itself ({@code relaybox.dead_letter.created}); producers may not. */
    public static final String RESERVED_PREFIX = "relaybox.";
    /** The one endpoint that receives {@code relaybox.*} events: the configured alert endpoint. */
    public static final String ALERT_ENDPOINT = "relaybox-alerts";

    private JdbcOutbox() {}

    /**
     * Writes the row on the caller's connection and returns its id, which receivers see as {@code webhook-id}.
     *
     * @throws IllegalArgumentException for a {@code relaybox.*} event type: those are Relaybox's own
     */
    public static UUID enqueue(Connection connection, OutboxEvent event) throws SQLException {
        refuseReserved(event);
        return insert(connection, event);
    }

    /**
     * For Relaybox's own events ({@code relaybox.dead_letter.created}): delivered only to the alert endpoint,
     * never to subscribers of {@code *}.
     */
    public static UUID enqueueRelayboxEvent(Connection connection, OutboxEvent event) throws SQLException {
        if (!isReserved(event.eventType())) {
            throw new IllegalArgumentException("not a Relaybox event type: " + event.eventType());
        }
        return insert(connection, event);
    }

    /** Whether {@code eventType} belongs to Relaybox ({@code relaybox.*}, in any letter case). */
    public static boolean isReserved(String eventType) {
        return eventType.toLowerCase(Locale.ROOT).startsWith(RESERVED_PREFIX);
    }

    private static void refuseReserved(OutboxEvent event) {
        if (isReserved(event.eventType())) {
            throw new IllegalArgumentException("event type " + event.eventType() + " is reserved: " + RESERVED_PREFIX
                    + "* events come only from Relaybox itself");
        }
    }

    private static UUID insert(Connection connection, OutboxEvent event) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(OutboxTable.INSERT_ALL)) {
            bindEvent(insert, event);
            insert.setString(5, event.tenant());
            insert.setString(6, event.traceparent());
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getObject(1, UUID.class);
            }
        }
    }

    /**
     * Like {@link #enqueue} but at most once per idempotency key: the same key with the same request hash
     * returns the existing row; the same key with a different hash reports a conflict and writes nothing.
     */
    public static IdempotentEnqueue enqueueIdempotent(
            Connection connection, OutboxEvent event, String key, String requestHash) throws SQLException {
        refuseReserved(event);
        boolean tenant = event.tenant() != null;
        try (PreparedStatement insert = connection.prepareStatement(
                tenant ? OutboxTable.INSERT_IDEMPOTENT_FOR_TENANT : OutboxTable.INSERT_IDEMPOTENT)) {
            int next = bindEvent(insert, event);
            if (tenant) {
                insert.setString(next++, event.tenant());
            }
            insert.setString(next++, event.traceparent());
            insert.setString(next++, key);
            insert.setString(next, requestHash);
            try (ResultSet row = insert.executeQuery()) {
                if (row.next()) {
                    return new IdempotentEnqueue(row.getObject(1, UUID.class), true, false);
                }
            }
        }
        try (PreparedStatement find = connection.prepareStatement(
                tenant ? OutboxTable.FIND_BY_TENANT_IDEMPOTENCY_KEY : OutboxTable.FIND_BY_IDEMPOTENCY_KEY)) {
            find.setString(1, key);
            if (tenant) {
                find.setString(2, event.tenant());
            }
            try (ResultSet row = find.executeQuery()) {
                row.next();
                return new IdempotentEnqueue(
                        row.getObject(1, UUID.class), false, !requestHash.equals(row.getString(2)));
            }
        }
    }

    /** Binds the columns every insert has, as parameters 1 to 4; returns the next parameter's index. */
    private static int bindEvent(PreparedStatement statement, OutboxEvent event) throws SQLException {
        statement.setString(1, event.aggregateType());
        statement.setString(2, event.aggregateId());
        statement.setString(3, event.eventType());
        statement.setString(4, event.payloadJson());
        return 5;
    }
}
