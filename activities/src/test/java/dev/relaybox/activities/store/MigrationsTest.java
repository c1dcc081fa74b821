package dev.relaybox.activities.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;

class MigrationsTest {

    @Test
    void freshDatabaseGetsEveryTable() {
        Jdbi jdbi = TestDatabase.fresh();
        var tables = jdbi.withHandle(h -> h.createQuery(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
                .mapTo(String.class)
                .list());
        assertThat(tables).contains("outbox_events", "endpoints", "deliveries", "delivery_attempts",
                "webhook_inbox", "entities", "dead_letters");
    }

    @Test
    void migratingTwiceChangesNothing() {
        var dataSource = TestDatabase.freshDataSource();
        assertThat(Migrations.migrate(dataSource).migrationsExecuted).isZero();
    }

    @Test
    void inboxRejectsSecondRowForSamePartnerEvent() {
        Jdbi jdbi = TestDatabase.fresh();
        String insert = "INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified) "
                + "VALUES (:partner, :id, '{}'::jsonb, true)";
        jdbi.useHandle(h -> h.createUpdate(insert).bind("partner", "stripe").bind("id", "evt_1").execute());
        // Another partner may reuse the same event id.
        jdbi.useHandle(h -> h.createUpdate(insert).bind("partner", "github").bind("id", "evt_1").execute());

        assertThatThrownBy(() -> jdbi.useHandle(
                        h -> h.createUpdate(insert).bind("partner", "stripe").bind("id", "evt_1").execute()))
                .isInstanceOf(UnableToExecuteStatementException.class)
                .hasMessageContaining("webhook_inbox_partner_name_partner_event_id_key");
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox").mapTo(int.class).one());
        assertThat(rows).isEqualTo(2);
    }
}
