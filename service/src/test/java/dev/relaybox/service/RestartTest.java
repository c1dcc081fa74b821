package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;
import java.time.Duration;
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
            jdbi(first).useHandle(h -> h.execute(
                    "INSERT INTO entities (aggregate_type, aggregate_id, state, version) VALUES ('order', '1', 'paid', 1)"));
        } finally {
            first.after();
        }

        // Same Temporal port and data directory: only possible if the first boot released both.
        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort);
        second.before();
        try {
            String state = jdbi(second).withHandle(h -> h.createQuery(
                    "SELECT state FROM entities WHERE aggregate_type = 'order' AND aggregate_id = '1'")
                    .mapTo(String.class).one());
            assertThat(state).isEqualTo("paid");
        } finally {
            second.after();
        }
    }

    @Test
    void deliveryInTheMiddleOfItsScheduleResumesAfterARestart() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        // A long backoff: only the reconciler's restart can bring the second attempt within the test.
        ConfigOverride longBackoff = ConfigOverride.config("delivery.retryDelays", "1h");
        try (TestReceiver receiver = new TestReceiver()) {
            receiver.script("/hooks", TestReceiver.Reply.of(503));
            String outboxId;
            DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort, longBackoff);
            first.before();
            try {
                Api api = new Api(first);
                api.admin("POST", "/admin/endpoints", Map.of("name", "hooks", "url", receiver.url("/hooks"),
                        "eventTypes", List.of("*")));
                outboxId = api.producer("POST", "/outbox", Map.of("eventType", "order.paid", "aggregateType", "order",
                        "aggregateId", "9", "payload", Map.of())).text("id");
                await().atMost(Duration.ofSeconds(30)).until(() -> "RETRYING".equals(deliveryStatus(first)));
            } finally {
                first.after();
            }
            receiver.script("/hooks", TestReceiver.Reply.of(200));

            DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort, longBackoff);
            second.before();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> "DELIVERED".equals(deliveryStatus(second)));
                assertThat(receiver.received("/hooks")).extracting(r -> r.header("webhook-id"))
                        .containsExactly(outboxId, outboxId);
            } finally {
                second.after();
            }
        }
    }

    private static String deliveryStatus(DropwizardTestSupport<RelayboxConfiguration> app) {
        return jdbi(app).withHandle(h -> h.createQuery("SELECT status FROM deliveries").mapTo(String.class).findOne()
                .orElse(null));
    }

    private static Jdbi jdbi(DropwizardTestSupport<RelayboxConfiguration> app) {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }
}
