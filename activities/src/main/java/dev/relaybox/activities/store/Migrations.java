package dev.relaybox.activities.store;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/** Applies the versioned schema in {@code db/migration}; safe to run on every start and from several instances. */
public final class Migrations {
    private Migrations() {}

    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .load()
                .migrate();
    }
}
