package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.relaybox.activities.RabbitBroker;
import dev.relaybox.store.EndpointControls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deliveries to RabbitMQ exchanges, on Debian's rabbitmq-server: each target is an exchange and a durable queue bound
 * to it, of the same name.
 */
class RabbitDestinationTest extends BrokerDestinationContract {
    static final String ROUTING_KEY = "order.events";

    @TempDir
    static Path home;

    static RabbitBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = RabbitBroker.start(home);
    }

    @AfterAll
    static void stopBrokerForGood() {
        if (broker != null) {
            broker.close();
        }
    }

    @Override
    void create(String name) throws Exception {
        try (Connection connection = broker.connect();
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(name, BuiltinExchangeType.DIRECT, true);
            channel.queueDeclare(name, true, false, false, null);
            channel.queueBind(name, name, ROUTING_KEY);
        }
    }

    @Override
    String url(String name) {
        return broker.uri();
    }

    @Override
    Destination destination(String name) {
        return new Destination.RabbitMq(name, ROUTING_KEY, null, null);
    }

    @Override
    List<Received> received(String name) throws Exception {
        return broker.drain(name).stream().map(RabbitDestinationTest::received).toList();
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
        assertThat(message.properties())
                .as("persistent, its message id the webhook-id")
                .containsEntry("deliveryMode", "2")
                .containsEntry("messageId", message.webhookId());
    }

    @Test
    void aBrokerThatBlocksPublishersIsAFailedAttemptAndTheMessageArrivesOnceItLetsThemThrough() throws Exception {
        create("blocked");
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 30),
                CircuitSettings.defaults().withFailureThreshold(0));
        endpoint("blocked", EndpointControls.defaults());
        broker.blockPublishers();
        UUID outboxId;
        try {
            outboxId = harness.enqueue("order-12", "{}");
            harness.start(List.of(outboxId));
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> harness.count("SELECT count(*) FROM delivery_attempts") >= 2);
        } finally {
            broker.unblockPublishers();
        }

        harness.awaitAll(List.of(outboxId), Duration.ofMinutes(2));

        assertThat(harness.count("SELECT count(*) FROM delivery_attempts WHERE error LIKE '%flow control%'"))
                .as("failed attempts that say why")
                .isPositive();
        // A publish the broker took just as it blocked is confirmed never: sent again, it arrives twice, with one id.
        assertThat(received("blocked"))
                .isNotEmpty()
                .extracting(Received::webhookId)
                .containsOnly(outboxId.toString());
    }

    private static Received received(GetResponse message) {
        Map<String, String> headers = new HashMap<>();
        message.getProps().getHeaders().forEach((name, value) -> headers.put(name, value.toString()));
        return new Received(
                headers,
                message.getBody(),
                Map.of(
                        "deliveryMode", String.valueOf(message.getProps().getDeliveryMode()),
                        "messageId", String.valueOf(message.getProps().getMessageId())));
    }
}
