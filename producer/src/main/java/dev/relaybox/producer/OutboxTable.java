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
    /** Optional: the key of the tenant whose endpoints alone receive the event (a row of {@code tenants}). */
    public static final String TENANT = "tenant";
    /** Optional: the W3C {@code traceparent} of the producer's span, which the deliveries' spans continue. */
    public static final String TRACEPARENT = "traceparent";

    /**
     * The insert to run inside the producer's transaction. Parameters in order: aggregate type, aggregate id,
     * event type, payload as JSON text. Returns the row's id, which receivers see as {@code webhook-id}.
     */
    public static final String INSERT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
            VALUES (?, ?, ?, CAST(? AS jsonb))
            RETURNING id""";

    /** {@link #INSERT} with the tenant as its fifth parameter. */
    public static final String INSERT_FOR_TENANT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, tenant)
            VALUES (?, ?, ?, CAST(? AS jsonb), ?)
            RETURNING id""";

    /** Every column a producer may write, as {@link JdbcOutbox} binds them: {@link #INSERT}'s, tenant, traceparent. */
    static final String INSERT_ALL = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, tenant, traceparent)
            VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?)
            RETURNING id""";

    /** {@link #INSERT} with the traceparent, an idempotency key and a request hash as fifth to seventh parameters. */
    static final String INSERT_IDEMPOTENT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, traceparent,
                                       idempotency_key, request_hash)
            VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?, ?)
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING id""";

    static final String FIND_BY_IDEMPOTENCY_KEY =
            "SELECT id, request_hash FROM outbox_events WHERE idempotency_key = ?";

    /** A tenant's keys are its own: {@link #INSERT_ALL} with the key and request hash as seventh and eighth. */
    static final String INSERT_IDEMPOTENT_FOR_TENANT = """
            INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, tenant, traceparent,
                                       tenant_idempotency_key, request_hash)
            VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?)
            ON CONFLICT (tenant, tenant_idempotency_key) DO NOTHING
            RETURNING id""";

    static final String FIND_BY_TENANT_IDEMPOTENCY_KEY =
            "SELECT id, request_hash FROM outbox_events WHERE tenant_idempotency_key = ? AND tenant = ?";

    private OutboxTable() {}
}
