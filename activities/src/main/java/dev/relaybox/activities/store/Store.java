package dev.relaybox.activities.store;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.NoTemplateEngine;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

/** The JDBI settings every part of Relaybox relies on. */
public final class Store {
    private Store() {}

    public static Jdbi configure(Jdbi jdbi) {
        // Relaybox's SQL is plain (no <attribute> templates). Without a template engine no statement is
        // lexed on every execution; Dropwizard's default wrapper engine did that, at a cost the
        // benchmark's profile showed on every request.
        return jdbi.installPlugin(new SqlObjectPlugin())
                .installPlugin(new PostgresPlugin())
                .setTemplateEngine(new NoTemplateEngine());
    }
}
