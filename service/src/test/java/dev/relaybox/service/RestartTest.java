package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Embedded mode across restarts: PostgreSQL keeps its data, Temporal keeps nothing, the reconciler makes up for it. */
class RestartTest {

    @Test
    void secondBootInSameJvmReusesDataDirectoryAndPorts() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();

        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort);
        first.before();
        try {
            jdbi(first)
                    .useHandle(
                            h -> h.execute(
                                    "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', '1', 'paid', 1)"));
        } finally {
            first.after();
        }

        // Same Temporal port and data directory: only possible if the first boot released both.
        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort);
        second.before();
        try {
            String state = jdbi(second)
                    .withHandle(h -> h.createQuery(
                                    "SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = '1'")
                            .mapTo(String.class)
                            .one());
            assertThat(state).isEqualTo("paid");
        } finally {
            second.after();
        }
    }

    @Test
    void deliveryInTheMiddleOfItsScheduleResumesItAfterARestart() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        // The embedded Temporal keeps nothing across a restart: the row's next attempt time is all that is left.
        ConfigOverride[] overrides = {
            ConfigOverride.config("delivery.retryDelays", "30s"),
            ConfigOverride.config("dispatcher.reconcileInterval", "1s"),
            ConfigOverride.config("dispatcher.reconcileGrace", "1s")
        };
        try (TestReceiver receiver = new TestReceiver()) {
            receiver.script("/hooks", TestReceiver.Reply.of(503));
            String outboxId;
            Instant recordedNext;
            DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort, overrides);
            first.before();
            try {
                Api api = new Api(first);
                api.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of("name", "hooks", "url", receiver.url("/hooks"), "eventTypes", List.of("*")));
                outboxId = api.enqueue("order.paid", "order", "9", Map.of()).text("id");
                await().atMost(Duration.ofSeconds(30)).until(() -> "RETRYING".equals(deliveryStatus(first)));
                recordedNext = jdbi(first)
                        .withHandle(h -> h.createQuery("SELECT next_attempt_at FROM deliveries")
                                .mapTo(Instant.class)
                                .one());
            } finally {
                first.after();
            }
            receiver.script("/hooks", TestReceiver.Reply.of(200));

            DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort, overrides);
            second.before();
            try {
                await().atMost(Duration.ofSeconds(90)).until(() -> "DELIVERED".equals(deliveryStatus(second)));
                assertThat(receiver.received("/hooks"))
                        .extracting(r -> r.header("webhook-id"))
                        .containsExactly(outboxId, outboxId);
                List<Integer> attempts = jdbi(second)
                        .withHandle(h -> h.createQuery("SELECT attempt FROM delivery_attempts ORDER BY attempt")
                                .mapTo(Integer.class)
                                .list());
                Instant secondAttempt = jdbi(second)
                        .withHandle(h -> h.createQuery("SELECT started_at FROM delivery_attempts WHERE attempt = 2")
                                .mapTo(Instant.class)
                                .one());
                // The schedule was not reset: attempt 2 came as the first run had planned it, not at once.
                assertThat(attempts).containsExactly(1, 2);
                assertThat(secondAttempt).isAfterOrEqualTo(recordedNext);
            } finally {
                second.after();
            }
        }
    }

    @Test
    void aDeferredEventIsReleasedAtOnceWhenItsPreconditionLandsAfterARestart() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        // Default rechecks (5m) and reconciler (1m passes, 5m grace): only a re-drive at start can release it in time.
        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort);
        first.before();
        try {
            assertThat(new Api(first)
                            .shopWebhook("evt-r-paid", "order.paid", "r1")
                            .status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> "DEFERRED".equals(inboxStatus(first, "evt-r-paid")));
        } finally {
            first.after();
        }

        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort);
        second.before();
        try {
            assertThat(new Api(second)
                            .shopWebhook("evt-r-created", "order.created", "r1")
                            .status())
                    .isEqualTo(200);

            await().atMost(Duration.ofSeconds(30)).until(() -> "PROCESSED".equals(inboxStatus(second, "evt-r-paid")));
            String state = jdbi(second)
                    .withHandle(h -> h.createQuery(
                                    "SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = 'r1'")
                            .mapTo(String.class)
                            .one());
            assertThat(state).isEqualTo("paid");
        } finally {
            second.after();
        }
    }

    private static String inboxStatus(DropwizardTestSupport<RelayboxConfiguration> app, String eventId) {
        return jdbi(app)
                .withHandle(h -> h.createQuery("SELECT status FROM webhook_inbox WHERE partner_event_id = :id")
                        .bind("id", eventId)
                        .mapTo(String.class)
                        .findOne()
                        .orElse(null));
    }

    private static String deliveryStatus(DropwizardTestSupport<RelayboxConfiguration> app) {
        return jdbi(app)
                .withHandle(h -> h.createQuery("SELECT status FROM deliveries")
                        .mapTo(String.class)
                        .findOne()
                        .orElse(null));
    }

    private static Jdbi jdbi(DropwizardTestSupport<RelayboxConfiguration> app) {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }
}
