package dev.relaybox.store;

import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * PostgreSQL session-level advisory locks: one holder across every Relaybox process. Taken and released on the
 * same handle (the lock belongs to its connection).
 */
public interface AdvisoryLocks {
    /** True when this session now holds {@code key}; false at once when another does. */
    @SqlQuery("SELECT pg_try_advisory_lock(:key)")
    boolean tryLock(@Bind("key") long key);

    @SqlQuery("SELECT pg_advisory_unlock(:key)")
    boolean unlock(@Bind("key") long key);
}
