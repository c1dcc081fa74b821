package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHealthStore;
import dev.relaybox.store.EndpointStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every broker destination promises, through the one delivery workflow: a real broker, a real consumer, the
 * workflow's real schedule (on real time where the broker's restart is part of the test). Each test publishes to a
 * target of its own (an exchange, topic or queue); a subclass says how to make, reach, read, stop and start its broker.
 */
abstract class BrokerDestinationContract {
    OutboundHarness harness;

    /** One message as a consumer received it: its headers (attributes), body, and what else its broker says of it. */
    record Received(Map<String, String> headers, byte[] body, Map<String, String> properties) {
        String webhookId() {
            return headers.get("webhook-id");
        }
    }

    /** Creates the target (exchange and queue, topic, queue) named {@code name}. */
    abstract void create(String name) throws Exception;

    /** The endpoint's {@code url} for the target named {@code name}. */
    abstract String url(String name);

    abstract Destination destination(String name);

    /** Every message the target's consumer received, in order. */
    abstract List<Received> received(String name) throws Exception;

    abstract void stopBroker() throws Exception;

    abstract void startBrokerAgain() throws Exception;

    /** What a subclass checks beyond the common headers of a delivered message. */
    void deliveredAs(Received message, String aggregateId) {}

    @AfterEach
    void closeHarness() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aWebhookIsOneMessageAConsumerVerifiesAsItWouldAnHttpRequest() throws Exception {
        create("orders");
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = endpoint("orders", EndpointControls.defaults());
        String secret = harness.jdbi
                .withHandle(h -> h.attach(EndpointStore.class).find(endpoint).orElseThrow())
                .secret();

        UUID outboxId = harness.enqueue("order-7", "{\"orderId\": 7}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        List<Received> messages = received("orders");
        assertThat(messages).hasSize(1);
        Received message = messages.get(0);
        assertThat(message.webhookId()).isEqualTo(outboxId.toString());
        assertThat(message.headers()).containsEntry("webhook-event-type", "order.updated");
        assertThat(new String(message.body(), StandardCharsets.UTF_8)).contains("\"orderId\": 7");
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        message.webhookId(),
                        message.headers().get("webhook-timestamp"),
                        message.body(),
                        message.headers().get("webhook-signature")))
                .as("signed with the endpoint's secret")
                .isTrue();
        deliveredAs(message, "order-7");
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
        EndpointHealthStore.Health health = harness.jdbi
                .withExtension(
                        EndpointHealthStore.class,
                        store -> store.health(endpoint, Instant.now().minus(Duration.ofHours(1))))
                .orElseThrow();
        assertThat(health.successesLastHour())
                .as("the broker's confirmation, a success on the endpoint's health")
                .isOne();
        List<DeliveryStore.HourlyAttempts> hours = harness.jdbi.withExtension(
                DeliveryStore.class,
                store -> store.hourlyAttempts(endpoint, Instant.now().minus(Duration.ofHours(2))));
        assertThat(hours.stream()
                        .mapToInt(DeliveryStore.HourlyAttempts::delivered)
                        .sum())
                .as("and on its chart")
                .isOne();
        UUID delivery = harness.jdbi.withHandle(h ->
                h.createQuery("SELECT id FROM deliveries").mapTo(UUID.class).one());
        List<DeliveryStore.Attempt> attempts =
                harness.jdbi.withExtension(DeliveryStore.class, store -> store.attempts(delivery));
        // The last attempt delivered it (a broker slow to answer at first may have made an earlier one fail).
        assertThat(attempts.get(attempts.size() - 1).brokerConfirmed())
                .as("shown as confirmed wherever the attempt is")
                .isTrue();
    }

    @Test
    void aTargetThatDoesNotExistDeadLettersAtOnceWithTheReason() {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        endpoint("no-such-target", EndpointControls.defaults());

        UUID outboxId = harness.enqueue("order-8", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        assertThat(harness.count("SELECT count(*) FROM delivery_attempts")).isOne();
        assertThat(reason()).contains("no-such-target").contains("does not exist");
    }

    @Test
    void anOrderedEndpointGetsAnAggregatesMessagesInOrderThroughABrokerOutage() throws Exception {
        create("ordered");
        // Real time: the schedule's tries two seconds apart outlast the broker's restart.
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 60),
                CircuitSettings.defaults().withFailureThreshold(0));
        endpoint("ordered", new EndpointControls(null, null, null, true, EndpointControls.ENVELOPE));
        List<UUID> events = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            events.add(harness.enqueue("order-10", "{\"n\": " + n + "}"));
        }
        stopBroker();
        try {
            harness.start(events);
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> harness.count("SELECT count(*) FROM delivery_attempts") >= 2);
        } finally {
            startBrokerAgain();
        }

        harness.awaitAll(events, Duration.ofMinutes(3));

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(5);
        List<Received> messages = received("ordered");
        // At least once: a publish whose confirmation was lost as the broker went down arrives again, with its id.
        assertThat(messages.stream().map(Received::webhookId).distinct())
                .as("in the order they were written")
                .containsExactlyElementsOf(events.stream().map(UUID::toString).toList());
        messages.forEach(m -> deliveredAs(m, "order-10"));
    }

    @Test
    void aDeadLetterReplayedOnceTheTargetExistsIsDelivered() throws Exception {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        endpoint("late", EndpointControls.defaults());
        UUID outboxId = harness.enqueue("order-11", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DEAD_LETTERED'"))
                .isOne();

        create("late");
        harness.replay(outboxId);

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
        assertThat(received("late")).extracting(Received::webhookId).containsExactly(outboxId.toString());
    }

    UUID endpoint(String name, EndpointControls controls) {
        return harness.endpoint(name, url(name), destination(name), controls);
    }

    String reason() {
        return harness.jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .one());
    }
}
