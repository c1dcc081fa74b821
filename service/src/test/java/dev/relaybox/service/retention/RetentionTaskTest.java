package dev.relaybox.service.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.Retention;
import dev.relaybox.store.Retention.Ages;
import dev.relaybox.store.Retention.Purged;
import dev.relaybox.store.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** The periodic purge against a real PostgreSQL: one process at a time, and what it purged in the metrics. */
class RetentionTaskTest {
    static final Ages AGES = new Ages(Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(30));

    final Jdbi jdbi = TestDatabase.fresh();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // Eight days on: the rows below, processed now, are past their seven-day age.
    final Clock eightDaysOn = Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC);
    final RetentionTask task =
            new RetentionTask(jdbi, new Retention(jdbi, eightDaysOn), AGES, 100, Duration.ofMinutes(10), registry);

    @Test
    void anotherProcessHoldingThePurgeLockMeansThisOneSkipsItsTurn() {
        processedInboxEvent("evt-1");
        processedInboxEvent("evt-2");

        try (Handle otherProcess = jdbi.open()) {
            assertThat(otherProcess
                            .createQuery("SELECT pg_try_advisory_lock(:key)")
                            .bind("key", RetentionTask.LOCK_KEY)
                            .mapTo(boolean.class)
                            .one())
                    .isTrue();
            assertThat(task.runOnce()).isEmpty();
            assertThat(inboxRows()).isEqualTo(2);
            otherProcess
                    .createQuery("SELECT pg_advisory_unlock(:key)")
                    .bind("key", RetentionTask.LOCK_KEY)
                    .mapTo(boolean.class)
                    .one();
        }

        assertThat(task.runOnce()).isEqualTo(Optional.of(new Purged(0, 0, 0, 2, 0)));
        assertThat(inboxRows()).isZero();
        assertThat(purgedMetric("webhook_inbox")).isEqualTo(2.0);
        assertThat(purgedMetric("outbox_events")).isZero();
        // The lock is released after a pass: the next one runs.
        assertThat(task.runOnce()).isEqualTo(Optional.of(Purged.NONE));
    }

    private void processedInboxEvent(String eventId) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified, status, processed_at)
                        VALUES ('shop', :eventId, '{}', true, 'PROCESSED', now())""").bind("eventId", eventId).execute());
    }

    private int inboxRows() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox")
                .mapTo(int.class)
                .one());
    }

    private double purgedMetric(String table) {
        return registry.get("relaybox.retention.purged")
                .tag("table", table)
                .counter()
                .count();
    }
}
