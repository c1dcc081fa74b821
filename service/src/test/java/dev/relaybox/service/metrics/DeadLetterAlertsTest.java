package dev.relaybox.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Dead letters raise alert events through the outbox, in their own transaction, but never about alerts. */
class DeadLetterAlertsTest {
    final Jdbi jdbi = TestDatabase.fresh();
    final SimpleMeterRegistry metrics = new SimpleMeterRegistry();

    @Test
    void deadLetterEnqueuesOneAlertEventCommittedWithIt() {
        DeadLetters deadLetters = deadLetters(true);

        UUID reference = UUID.randomUUID();
        var created = jdbi.inTransaction(h -> deadLetters.record(
                h,
                DeadLetterSource.OUTBOX,
                reference,
                "https://shop.example",
                "order.paid",
                "gave up after 4 attempts",
                "503 Service Unavailable",
                4));
        created.ifPresent(deadLetters::announce);

        List<String> alerts = alertPayloads();
        assertThat(alerts)
                .singleElement()
                .satisfies(payload ->
                        assertThat(payload).contains(reference.toString(), "gave up after 4 attempts", "order.paid"));
        assertThat(metrics.counter("relaybox.dead_letters", "source", "outbox").count())
                .isEqualTo(1);
    }

    @Test
    void deadLetteredAlertRaisesNoAlertOfItsOwn() {
        DeadLetters deadLetters = deadLetters(true);

        jdbi.useTransaction(h -> deadLetters.record(
                h,
                DeadLetterSource.OUTBOX,
                UUID.randomUUID(),
                "https://alerts.example",
                DeadLetterAlerts.ALERT_EVENT,
                "gave up after 4 attempts",
                "503",
                4));

        assertThat(alertPayloads()).isEmpty();
    }

    @Test
    void rolledBackDeadLetterLeavesNoAlert() {
        DeadLetters deadLetters = deadLetters(true);

        try {
            jdbi.useTransaction(h -> {
                deadLetters.record(
                        h, DeadLetterSource.INBOX, UUID.randomUUID(), "shop", "order.paid", "poison", null, 1);
                throw new IllegalStateException("the quarantine failed");
            });
        } catch (IllegalStateException expected) {
            // both roll back together
        }

        assertThat(alertPayloads()).isEmpty();
    }

    @Test
    void withoutAnAlertEndpointNoEventIsEnqueued() {
        DeadLetters deadLetters = deadLetters(false);

        jdbi.useTransaction(h -> deadLetters.record(
                h, DeadLetterSource.INBOX, UUID.randomUUID(), "shop", "order.paid", "poison", null, 1));

        assertThat(alertPayloads()).isEmpty();
    }

    private DeadLetters deadLetters(boolean alertsEnabled) {
        return new DeadLetters(new DeadLetterAlerts(metrics, new ObjectMapper(), alertsEnabled));
    }

    private List<String> alertPayloads() {
        return jdbi.withHandle(h -> h.createQuery("SELECT payload::text FROM outbox_events WHERE event_type = :type")
                .bind("type", DeadLetterAlerts.ALERT_EVENT)
                .mapTo(String.class)
                .list());
    }
}
