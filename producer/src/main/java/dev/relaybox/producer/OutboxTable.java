package dev.relaybox.producer;

/**
 * The {@code outbox_events} table as producers see it: a documented contract, so an application sharing
 * Relaybox's database may insert rows itself. A producer writes the four columns below; every other column has
 * a default, and a trigger wakes Relaybox's dispatcher when the row is committed.
 */
public final class OutboxTable {
    public static final String TABLE = "outbox_events";
    public static final String ID = "id";
    public static final String AGGREGATE_TYPE = "aggregate_type";
    public static final String AGGREGATE_ID = "aggregate_id";
    public static final String EVENT_TYPE = "event_type";
    /** jsonb: the body subscribers receive. */
    public static final String PAYLOAD = "payload";

    /**
     * The insert to run inside the producer's transaction. Parameters in order: aggregate type, aggregate id,
     * event type, payload as JSON text. Returns the row's id, which receivers see as {@code webhook-id}.
     */
    public static final String INSERT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
            VALUES (?, ?, ?, CAST(? AS jsonb))
            RETURNING id""";

    /** {@link #INSERT} with an idempotency key and request hash as its fifth and sixth parameters. */
    static final String INSERT_IDEMPOTENT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, idempotency_key, request_hash)
            VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?)
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING id""";

    static final String FIND_BY_IDEMPOTENCY_KEY =
            "SELECT id, request_hash FROM outbox_events WHERE idempotency_key = ?";

    private OutboxTable() {}
}
