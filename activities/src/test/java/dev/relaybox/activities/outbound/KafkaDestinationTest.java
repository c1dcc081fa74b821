package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.KafkaBroker.header;
import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.KafkaBroker;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHeadersStore;
import dev.relaybox.store.EndpointStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deliveries to a Kafka topic through the one delivery workflow: a real broker (KRaft) in its own process, a real
 * consumer, the workflow's real schedule on real time. Each test writes to a topic of its own.
 */
class KafkaDestinationTest {
    @TempDir
    static Path home;

    static KafkaBroker broker;
    OutboundHarness harness;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start(home);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aWebhookIsOneRecordKeyedByItsAggregateThatAConsumerVerifiesAsItWouldAnHttpRequest() throws Exception {
        broker.createTopic("orders", 3);
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = kafkaEndpoint("orders", "orders", EndpointControls.defaults());
        String secret = harness.jdbi
                .withHandle(h -> h.attach(EndpointStore.class).find(endpoint).orElseThrow())
                .secret();

        UUID outboxId = harness.enqueue("order-7", "{\"orderId\": 7}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        List<ConsumerRecord<String, byte[]>> records = broker.records("orders");
        assertThat(records).hasSize(1);
        ConsumerRecord<String, byte[]> record = records.get(0);
        assertThat(record.key()).as("the aggregate id").isEqualTo("order-7");
        assertThat(header(record, "webhook-id")).isEqualTo(outboxId.toString());
        assertThat(header(record, "webhook-event-type")).isEqualTo("order.updated");
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).contains("\"orderId\": 7");
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        header(record, "webhook-id"),
                        header(record, "webhook-timestamp"),
                        record.value(),
                        header(record, "webhook-signature")))
                .as("signed with the endpoint's secret")
                .isTrue();
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
    }

    @Test
    void aTopicThatDoesNotExistDeadLettersAtOnceWithTheReason() {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        kafkaEndpoint("nowhere", "no-such-topic", EndpointControls.defaults());

        UUID outboxId = harness.enqueue("order-8", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        assertThat(harness.count("SELECT count(*) FROM delivery_attempts")).isOne();
        String reason = harness.jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .one());
        assertThat(reason).contains("topic \"no-such-topic\" does not exist");
    }

    @Test
    void anOrderedEndpointGetsAnAggregatesRecordsInOrderThroughABrokerOutage() throws Exception {
        broker.createTopic("orders-ordered", 3);
        // Real time: the broker's restart takes seconds, which the schedule's tries two seconds apart outlast.
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 60),
                CircuitSettings.defaults().withFailureThreshold(0));
        kafkaEndpoint(
                "orders", "orders-ordered", new EndpointControls(null, null, null, true, EndpointControls.ENVELOPE));
        List<UUID> events = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            events.add(harness.enqueue("order-10", "{\"n\": " + n + "}"));
        }
        broker.stop();
        try {
            harness.start(events);
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> harness.count("SELECT count(*) FROM delivery_attempts") >= 2);
        } finally {
            broker.startAgain();
        }

        harness.awaitAll(events, Duration.ofMinutes(3));

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isEqualTo(5);
        // At least once: a record whose acknowledgement was lost as the broker went down arrives again, with its id.
        assertThat(broker.records("orders-ordered").stream()
                        .map(r -> header(r, "webhook-id"))
                        .distinct())
                .as("in the order they were written")
                .containsExactlyElementsOf(events.stream().map(UUID::toString).toList());
    }

    @Test
    void aDeadLetterReplayedOnceTheTopicExistsIsDelivered() throws Exception {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        kafkaEndpoint("late", "orders-late", EndpointControls.defaults());
        UUID outboxId = harness.enqueue("order-11", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DEAD_LETTERED'"))
                .isOne();

        broker.createTopic("orders-late", 1);
        harness.replay(outboxId);

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
        assertThat(broker.records("orders-late"))
                .singleElement()
                .satisfies(r -> assertThat(header(r, "webhook-id")).isEqualTo(outboxId.toString()));
    }

    @Test
    void saslCredentialsAreUsedAndAChangedPasswordTakesEffectAtOnce() throws Exception {
        broker.createTopic("orders-sasl", 1);
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = harness.endpoint(
                "sasl",
                broker.saslUrl(),
                new Destination.Kafka("orders-sasl", KafkaBroker.SASL_USER, KafkaBroker.SASL_PASSWORD, "PLAIN"),
                EndpointControls.defaults());
        UUID first = harness.enqueue("order-12", "{}");
        harness.start(List.of(first));
        harness.awaitAll(List.of(first));

        harness.jdbi.useExtension(
                EndpointHeadersStore.class,
                store -> store.setDestination(
                        endpoint,
                        new Destination.Kafka("orders-sasl", KafkaBroker.SASL_USER, "not-the-password", "PLAIN")
                                .toJson()));
        UUID second = harness.enqueue("order-13", "{}");
        harness.start(List.of(second));
        harness.awaitAll(List.of(second));

        assertThat(broker.records("orders-sasl"))
                .extracting(r -> header(r, "webhook-id"))
                .containsExactly(first.toString());
        String reason = harness.jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .one());
        assertThat(reason).as("the new password, refused").contains("the broker refused");
    }

    private UUID kafkaEndpoint(String name, String topic, EndpointControls controls) {
        return harness.endpoint(name, broker.url(), new Destination.Kafka(topic, null, null, null), controls);
    }
}
