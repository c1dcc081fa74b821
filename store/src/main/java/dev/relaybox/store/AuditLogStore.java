package dev.relaybox.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.sqlobject.SqlObject;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * The append-only {@code audit_log}: each entry sealed with the hash of the one before it ({@code audit_hash} in the
 * schema). Appends are serialised by a transaction-scoped lock, so entries written in concurrent transactions chain in
 * commit order; call {@link #append} inside the transaction whose change it records, so the entry commits with it or
 * not at all.
 */
public interface AuditLogStore extends SqlObject {
    /** The seal the first entry chains to. */
    String GENESIS = "0".repeat(64);

    /** Names the lock that serialises appends; an arbitrary constant no other Relaybox lock uses. */
    long APPEND_LOCK = 0x52_42_41_55_44_49_54L;

    /** An entry as appended: its place in the chain and its seal. */
    record Sealed(long seq, String hash) {}

    /** One entry read back, with its seal computed again from what is stored now. */
    record Link(long seq, Instant recordedAt, String action, String previousHash, String hash, String recomputed) {}

    /** Appends one entry, {@code details} as JSON text, and returns its seal. */
    default Sealed append(String actor, String action, UUID subject, String details) {
        getHandle().execute("SELECT pg_advisory_xact_lock(?)", APPEND_LOCK);
        return insert(actor, action, subject, details, GENESIS);
    }

    @SqlQuery("""
            INSERT INTO audit_log (seq, recorded_at, actor, action, subject, details, previous_hash, hash)
            SELECT t.seq, t.at, :actor, :action, :subject, t.details, t.previous,
                   audit_hash(t.previous, t.seq, t.at, :actor, :action, :subject, t.details)
              FROM (SELECT coalesce(last.seq, 0) + 1 AS seq, coalesce(last.hash, :genesis) AS previous,
                           now() AS at, CAST(:details AS jsonb) AS details
                      FROM (SELECT 1) one
                      LEFT JOIN (SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1) last ON true) t
            RETURNING seq, hash""")
    @RegisterConstructorMapper(Sealed.class)
    Sealed insert(
            @Bind("actor") String actor,
            @Bind("action") String action,
            @Bind("subject") UUID subject,
            @Bind("details") String details,
            @Bind("genesis") String genesis);

    /** One entry as an operator reads it; {@code details} as JSON text. */
    record Entry(
            long seq,
            Instant recordedAt,
            String actor,
            String action,
            UUID subject,
            String details,
            String previousHash,
            String hash) {}

    /** Up to {@code limit} entries before {@code beforeSeq} (all when null), newest first. */
    @SqlQuery("""
            SELECT seq, recorded_at, actor, action, subject, details::text AS details, previous_hash, hash
              FROM audit_log WHERE (CAST(:before AS bigint) IS NULL OR seq < :before)
             ORDER BY seq DESC LIMIT :limit""")
    @RegisterConstructorMapper(Entry.class)
    List<Entry> newestFirst(@Bind("before") Long beforeSeq, @Bind("limit") int limit);

    /** Every entry in order, each with its seal computed again, to {@code each}; streamed, not held in memory. */
    default void readChain(Consumer<Link> each) {
        getHandle()
                .createQuery("""
                        SELECT seq, recorded_at, action, previous_hash, hash,
                               audit_hash(previous_hash, seq, recorded_at, actor, action, subject, details) AS recomputed
                          FROM audit_log ORDER BY seq""")
                .setFetchSize(500)
                .map((rs, ctx) -> new Link(
                        rs.getLong("seq"),
                        rs.getTimestamp("recorded_at").toInstant(),
                        rs.getString("action"),
                        rs.getString("previous_hash"),
                        rs.getString("hash"),
                        rs.getString("recomputed")))
                .forEach(each);
    }
}
