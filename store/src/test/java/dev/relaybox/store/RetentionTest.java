package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.Retention.Ages;
import dev.relaybox.store.Retention.Purged;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retention against a real PostgreSQL, with time moved forward through the store's clock. */
class RetentionTest {
    static final Ages AGES = new Ages(Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(30));

    Jdbi jdbi;
    MovableClock clock;
    Retention retention;
    UUID endpoint;

    @BeforeEach
    void freshDatabase() {
        jdbi = TestDatabase.fresh();
        clock = new MovableClock(Instant.now());
        retention = new Retention(jdbi, clock);
        endpoint = jdbi.withHandle(h -> h.createQuery(
                        "INSERT INTO endpoints (name, url, secret) VALUES ('shop', 'http://127.0.0.1/x', 'whsec_eA==') RETURNING id")
                .mapTo(UUID.class)
                .one());
    }

    @Test
    void finishedRowsGoOnceOlderThanTheirAgeAndOpenWorkStays() {
        List<UUID> delivered = List.of(deliveredOutbox(), deliveredOutbox(), deliveredOutbox());
        List<UUID> processedInbox = List.of(inbox("PROCESSED"), inbox("PROCESSED"), inbox("PROCESSED"));
        // Kept forever: dead-lettered and still open, unfinished, not yet dispatched, deferred, quarantined.
        UUID openDeadLettered = outbox("PROCESSED");
        UUID openDelivery = delivery(openDeadLettered, "DEAD_LETTERED", 4);
        UUID openDeadLetter = deadLetter("OUTBOX", openDelivery, false);
        UUID retrying = outbox("DISPATCHED");
        delivery(retrying, "RETRYING", 2);
        UUID pending = outbox("PENDING");
        UUID deferred = inbox("DEFERRED");
        UUID quarantined = inbox("QUARANTINED");
        UUID quarantinedDeadLetter = deadLetter("INBOX", quarantined, false);
        UUID received = inbox("RECEIVED");
        jdbi.useHandle(
                h -> h.execute(
                        "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', '42', 'paid', 2)"));
        // Dead-lettered, then discarded: purged with its dead letter, once that is old enough.
        UUID discarded = outbox("PROCESSED");
        UUID discardedDelivery = delivery(discarded, "DEAD_LETTERED", 4);
        UUID closedDeadLetter = deadLetter("OUTBOX", discardedDelivery, true);

        clock.advance(Duration.ofDays(3));
        assertThat(retention.purge(AGES, 2)).isEqualTo(Purged.NONE);

        clock.advance(Duration.ofDays(5));
        assertThat(retention.purge(AGES, 2)).isEqualTo(new Purged(3, 3, 6, 3, 0));
        delivered.forEach(id -> assertThat(exists("outbox_events", id)).isFalse());
        processedInbox.forEach(id -> assertThat(exists("webhook_inbox", id)).isFalse());
        assertThat(exists("outbox_events", discarded))
                .as("its closed dead letter still refers to it")
                .isTrue();
        assertThat(exists("dead_letters", closedDeadLetter)).isTrue();

        clock.advance(Duration.ofDays(23));
        assertThat(retention.purge(AGES, 2)).isEqualTo(new Purged(1, 1, 4, 0, 1));
        assertThat(exists("outbox_events", discarded)).isFalse();
        assertThat(exists("dead_letters", closedDeadLetter)).isFalse();

        clock.advance(Duration.ofDays(3650));
        assertThat(retention.purge(AGES, 2)).isEqualTo(Purged.NONE);
        for (UUID id : List.of(openDeadLettered, retrying, pending)) {
            assertThat(exists("outbox_events", id)).as("outbox " + id).isTrue();
        }
        assertThat(exists("deliveries", openDelivery)).isTrue();
        assertThat(count("delivery_attempts"))
                .as("attempts of the kept deliveries")
                .isEqualTo(6);
        for (UUID id : List.of(deferred, quarantined, received)) {
            assertThat(exists("webhook_inbox", id)).as("inbox " + id).isTrue();
        }
        assertThat(exists("dead_letters", openDeadLetter)).isTrue();
        assertThat(exists("dead_letters", quarantinedDeadLetter)).isTrue();
        assertThat(count("entities")).isEqualTo(1);
        assertThat(count("endpoints")).isEqualTo(1);
    }

    @Test
    void zeroAgesKeepEverythingForever() {
        deliveredOutbox();
        inbox("PROCESSED");
        deadLetter("INBOX", inbox("PROCESSED"), true);

        clock.advance(Duration.ofDays(3650));

        assertThat(retention.purge(Ages.FOREVER, 100)).isEqualTo(Purged.NONE);
        assertThat(count("outbox_events") + count("webhook_inbox") + count("dead_letters"))
                .isEqualTo(4);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // only a guard: a purge that waited on the lock would hang
    void rowsLockedByAnotherTransactionAreSkippedNotWaitedFor() {
        UUID busyOutbox = deliveredOutbox();
        UUID idleOutbox = deliveredOutbox();
        UUID busyInbox = inbox("PROCESSED");
        UUID idleInbox = inbox("PROCESSED");
        clock.advance(Duration.ofDays(8));

        try (Handle other = jdbi.open()) {
            other.begin();
            other.createQuery("SELECT id FROM outbox_events WHERE id = :id FOR UPDATE")
                    .bind("id", busyOutbox)
                    .mapTo(UUID.class)
                    .one();
            other.createQuery("SELECT id FROM webhook_inbox WHERE id = :id FOR UPDATE")
                    .bind("id", busyInbox)
                    .mapTo(UUID.class)
                    .one();

            assertThat(retention.purge(AGES, 10)).isEqualTo(new Purged(1, 1, 2, 1, 0));
            assertThat(exists("outbox_events", idleOutbox)).isFalse();
            assertThat(exists("webhook_inbox", idleInbox)).isFalse();
            assertThat(exists("outbox_events", busyOutbox)).isTrue();
            assertThat(exists("webhook_inbox", busyInbox)).isTrue();
            other.rollback();
        }
        assertThat(retention.purge(AGES, 10)).isEqualTo(new Purged(1, 1, 2, 1, 0));
    }

    private UUID deliveredOutbox() {
        UUID id = outbox("PROCESSED");
        delivery(id, "DELIVERED", 2);
        return id;
    }

    private UUID outbox(String status) {
        return jdbi.withHandle(
                h -> h.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload, status, dispatched_at, processed_at)
                        VALUES ('order', '42', 'order.paid', '{}', :status,
                                CASE WHEN :status <> 'PENDING' THEN now() END,
                                CASE WHEN :status = 'PROCESSED' THEN now() END)
                        RETURNING id""").bind("status", status).mapTo(UUID.class).one());
    }

    private UUID delivery(UUID outboxId, String status, int attempts) {
        return jdbi.withHandle(h -> {
            UUID id = h.createQuery("""
                            INSERT INTO deliveries (outbox_id, endpoint_id, status, attempts, completed_at)
                            VALUES (:outbox, :endpoint, :status, :attempts,
                                    CASE WHEN :status IN ('DELIVERED', 'DEAD_LETTERED') THEN now() END)
                            RETURNING id""")
                    .bind("outbox", outboxId)
                    .bind("endpoint", endpoint)
                    .bind("status", status)
                    .bind("attempts", attempts)
                    .mapTo(UUID.class)
                    .one();
            for (int attempt = 1; attempt <= attempts; attempt++) {
                h.createUpdate("""
                                INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms)
                                VALUES (:delivery, :attempt, now(), 503, 10)""")
                        .bind("delivery", id)
                        .bind("attempt", attempt)
                        .execute();
            }
            return id;
        });
    }

    private UUID inbox(String status) {
        return jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, payload, signature_verified, status, processed_at)
                        VALUES ('shop', :eventId, '{}', true, :status, CASE WHEN :status = 'PROCESSED' THEN now() END)
                        RETURNING id""")
                .bind("eventId", UUID.randomUUID().toString())
                .bind("status", status)
                .mapTo(UUID.class)
                .one());
    }

    private UUID deadLetter(String source, UUID reference, boolean resolved) {
        return jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO dead_letters (source, reference, reason, resolved_at, resolution)
                        VALUES (:source, :reference, 'gave up', CASE WHEN :resolved THEN now() END,
                                CASE WHEN :resolved THEN 'DISCARDED' END)
                        RETURNING id""")
                .bind("source", source)
                .bind("reference", reference)
                .bind("resolved", resolved)
                .mapTo(UUID.class)
                .one());
    }

    private boolean exists(String table, UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM " + table + " WHERE id = :id")
                        .bind("id", id)
                        .mapTo(int.class)
                        .one())
                == 1;
    }

    private int count(String table) {
        return jdbi.withHandle(h ->
                h.createQuery("SELECT count(*) FROM " + table).mapTo(int.class).one());
    }

    /** A clock a test moves forward by hand. */
    static final class MovableClock extends Clock {
        private Instant now;

        MovableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
