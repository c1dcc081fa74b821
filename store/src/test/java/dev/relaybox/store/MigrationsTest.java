package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class MigrationsTest {

    @Test
    void aMigrationMayRunLongerThanThePoolsSocketTimeout() throws Exception {
        PGSimpleDataSource pool = new PGSimpleDataSource();
        pool.setUrl("jdbc:postgresql://localhost:" + TestDatabase.port() + "/postgres");
        pool.setUser("postgres");
        pool.setSocketTimeout(1);
        try (Connection serving = pool.getConnection();
                Statement statement = serving.createStatement()) {
            assertThatThrownBy(() -> statement.execute("SELECT pg_sleep(2)"))
                    .as("a statement that outlasts the socket timeout fails while serving")
                    .isInstanceOf(SQLException.class);
        }

        try (Connection migrating = Migrations.withoutSocketTimeout(pool).getConnection();
                Statement statement = migrating.createStatement()) {
            assertThat(statement.execute("SELECT pg_sleep(2)")).isTrue();
        }
    }

    @Test
    void freshDatabaseGetsEveryTable() {
        Jdbi jdbi = TestDatabase.fresh();
        var tables = jdbi.withHandle(
                h -> h.createQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
                        .mapTo(String.class)
                        .list());
        assertThat(tables)
                .contains(
                        "outbox_events",
                        "endpoints",
                        "deliveries",
                        "delivery_attempts",
                        "webhook_inbox",
                        "entities",
                        "dead_letters");
    }

    @Test
    void migratingTwiceChangesNothing() {
        var dataSource = TestDatabase.freshDataSource();
        assertThat(Migrations.migrate(dataSource).migrationsExecuted).isZero();
    }

    @Test
    void theStoryFindsAnInboundEventByItsPartnerEventIdThroughAnIndex() {
        Jdbi jdbi = TestDatabase.fresh();
        String plan = jdbi.inTransaction(h -> {
            // An empty table is read whole whatever indexes exist; forbid that to see which index the lookup has.
            h.execute("SET LOCAL enable_seqscan = off");
            return String.join("\n", h.createQuery("""
                                    EXPLAIN SELECT id, aggregate_type, aggregate_id FROM webhook_inbox
                                     WHERE partner_event_id = 'evt_1' ORDER BY received_at DESC LIMIT 1""").mapTo(String.class).list());
        });

        assertThat(plan).contains("webhook_inbox_partner_event_id");
    }

    @Test
    void inboxRejectsSecondRowForSamePartnerEvent() {
        Jdbi jdbi = TestDatabase.fresh();
        String insert = "INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified) "
                + "VALUES (:partner, :id, '{}'::jsonb, true)";
        jdbi.useHandle(h -> h.createUpdate(insert)
                .bind("partner", "stripe")
                .bind("id", "evt_1")
                .execute());
        // Another partner may reuse the same event id.
        jdbi.useHandle(h -> h.createUpdate(insert)
                .bind("partner", "github")
                .bind("id", "evt_1")
                .execute());

        assertThatThrownBy(() -> jdbi.useHandle(h -> h.createUpdate(insert)
                        .bind("partner", "stripe")
                        .bind("id", "evt_1")
                        .execute()))
                .isInstanceOf(UnableToExecuteStatementException.class)
                .hasMessageContaining("webhook_inbox_partner_name_partner_event_id_key");
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox")
                .mapTo(int.class)
                .one());
        assertThat(rows).isEqualTo(2);
    }

    @Test
    void inboxRowsStoredBeforeIdsWereEscapedKeepTheIdTheirWorkflowRunsUnder() throws Exception {
        try (EmbeddedPostgres server = EmbeddedPostgres.builder().start()) {
            DataSource dataSource = server.getPostgresDatabase();
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration")
                    .target("2")
                    .load()
                    .migrate();
            Jdbi jdbi = Jdbi.create(dataSource);
            String longId = "e".repeat(200);
            // 197 characters, but 203 UTF-16 code units as the earlier release counted them: it hashed this one.
            String astral = "x".repeat(180) + "\uD83D\uDE00".repeat(6);
            for (List<String> row :
                    List.of(List.of("shop-eu", "1"), List.of("shop", longId), List.of("shop", astral))) {
                jdbi.useHandle(h -> h.createUpdate("""
                                INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified)
                                VALUES (:partner, :id, '{}', true)""")
                        .bind("partner", row.get(0))
                        .bind("id", row.get(1))
                        .execute());
            }

            Migrations.migrate(dataSource);

            List<String> ids = jdbi.withHandle(
                    h -> h.createQuery("SELECT workflow_id FROM webhook_inbox ORDER BY received_at, partner_event_id")
                            .mapTo(String.class)
                            .list());
            assertThat(ids)
                    .containsExactlyInAnyOrder(
                            "inbox-shop-eu-1",
                            // sha256 of 200 "e"s, as `printf 'e%.0s' $(seq 1 200) | sha256sum` prints it.
                            "inbox-shop-sha256-8afd3e3a697de1cc5a00cbe2af0ed27e5a1e173853865334685d068c57ef3d95",
                            "inbox-shop-sha256-"
                                    + HexFormat.of()
                                            .formatHex(MessageDigest.getInstance("SHA-256")
                                                    .digest(astral.getBytes(StandardCharsets.UTF_8))));
        }
    }
}
