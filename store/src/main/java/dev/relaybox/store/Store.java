package dev.relaybox.store;

import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.NoTemplateEngine;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;

/** The JDBI settings every part of Relaybox relies on. */
public final class Store {
    private Store() {}

    /** As {@link #configure(Jdbi, SecretBox)}, for a process that never reads or writes endpoint secrets. */
    public static Jdbi configure(Jdbi jdbi) {
        return configure(jdbi, null);
    }

    /** With {@code secrets} sealing and opening endpoint signing secrets ({@link Sealed} columns). */
    public static Jdbi configure(Jdbi jdbi, SecretBox secrets) {
        // Relaybox's SQL is plain (no <attribute> templates). Without a template engine no statement is
        // lexed on every execution; Dropwizard's default wrapper engine did that, at a cost the
        // benchmark's profile showed on every request.
        jdbi.installPlugin(new SqlObjectPlugin())
                .installPlugin(new PostgresPlugin())
                .setTemplateEngine(new NoTemplateEngine());
        SealedColumns.install(jdbi, secrets);
        // Every handle starts from a copy of this configuration, and a store's metadata (its methods, their
        // statements and binders) is cached in it. Metadata first worked out inside a handle, by handle.attach,
        // stays in that handle's copy and is worked out again for the next one: work it out once, here. No
        // connection is opened (no store method is called).
        STORES.forEach(store -> jdbi.withExtension(store, attached -> null));
        return jdbi;
    }

    private static final List<Class<?>> STORES = List.of(
            InboxIntake.class,
            InboxStore.class,
            InboxDispatchStore.class,
            InboxQueries.class,
            OutboxStore.class,
            OutboxQueries.class,
            DeliveryStore.class,
            DeliveryAttemptStore.class,
            EndpointStore.class,
            EndpointAttemptStore.class,
            DeadLetterStore.class,
            OverviewQueries.class,
            StoryQueries.class,
            EventTypeStore.class,
            AdvisoryLocks.class);
}
