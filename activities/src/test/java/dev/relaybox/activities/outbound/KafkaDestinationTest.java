package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.KafkaBroker;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHeadersStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deliveries to Kafka topics, on a KRaft broker in its own JVM: each target is a topic of three partitions. */
class KafkaDestinationTest extends BrokerDestinationContract {
    @TempDir
    static Path home;

    static KafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start(home);
    }

    @AfterAll
    static void stopBrokerForGood() {
        if (broker != null) {
            broker.close();
        }
    }

    @Override
    void create(String name) throws Exception {
        broker.createTopic(name, 3);
    }

    @Override
    String url(String name) {
        return broker.url();
    }

    @Override
    Destination destination(String name) {
        return new Destination.Kafka(name, null, null, null);
    }

    @Override
    List<Received> received(String name) {
        return broker.records(name).stream().map(KafkaDestinationTest::received).toList();
    }

    @Override
    void stopBroker() {
        broker.stop();
    }

    @Override
    void startBrokerAgain() throws Exception {
        broker.startAgain();
    }

    @Override
    void deliveredAs(Received message, String aggregateId) {
        assertThat(message.properties()).as("keyed by its aggregate").containsEntry("key", aggregateId);
    }

    @Test
    void saslCredentialsAreUsedAndAChangedPasswordTakesEffectAtOnce() throws Exception {
        create("sasl");
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = harness.endpoint(
                "sasl",
                broker.saslUrl(),
                new Destination.Kafka("sasl", KafkaBroker.SASL_USER, KafkaBroker.SASL_PASSWORD, "PLAIN"),
                EndpointControls.defaults());
        UUID first = harness.enqueue("order-12", "{}");
        harness.start(List.of(first));
        harness.awaitAll(List.of(first));

        harness.jdbi.useExtension(
                EndpointHeadersStore.class,
                store -> store.setDestination(
                        endpoint,
                        new Destination.Kafka("sasl", KafkaBroker.SASL_USER, "not-the-password", "PLAIN").toJson()));
        UUID second = harness.enqueue("order-13", "{}");
        harness.start(List.of(second));
        harness.awaitAll(List.of(second));

        assertThat(received("sasl")).extracting(Received::webhookId).containsExactly(first.toString());
        assertThat(reason()).as("the new password, refused").contains("the broker refused");
    }

    private static Received received(ConsumerRecord<String, byte[]> record) {
        Map<String, String> headers = new HashMap<>();
        record.headers().forEach(h -> headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
        return new Received(headers, record.value(), Map.of("key", record.key()));
    }
}
