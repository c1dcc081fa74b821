package dev.relaybox.activities.store;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

/** The JDBI settings every part of Relaybox relies on. */
public final class Store {
    private Store() {}

    public static Jdbi configure(Jdbi jdbi) {
        return jdbi.installPlugin(new SqlObjectPlugin()).installPlugin(new PostgresPlugin());
    }
}
