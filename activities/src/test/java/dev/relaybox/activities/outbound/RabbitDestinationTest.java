package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.RabbitBroker.header;
import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.relaybox.activities.RabbitBroker;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deliveries to a RabbitMQ exchange through the one delivery workflow: a real broker, a real consumer, the workflow's
 * real schedule on real time.
 */
class RabbitDestinationTest {
    static final String EXCHANGE = "orders";
    static final String QUEUE = "order-events";
    static final String ROUTING_KEY = "order.events";

    @TempDir
    static Path home;

    static RabbitBroker broker;
    OutboundHarness harness;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = RabbitBroker.start(home);
        try (Connection connection = broker.connect();
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(EXCHANGE, BuiltinExchangeType.DIRECT, true);
            channel.queueDeclare(QUEUE, true, false, false, null);
            channel.queueBind(QUEUE, EXCHANGE, ROUTING_KEY);
        }
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
    void aWebhookIsOnePersistentMessageAConsumerVerifiesAsItWouldAnHttpRequest() throws Exception {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = rabbitEndpoint("orders", new Destination.RabbitMq(EXCHANGE, ROUTING_KEY, null, null));
        String secret = harness.jdbi
                .withHandle(h -> h.attach(EndpointStore.class).find(endpoint).orElseThrow())
                .secret();

        UUID outboxId = harness.enqueue("order-7", "{\"orderId\": 7}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        List<GetResponse> messages = broker.drain(QUEUE);
        assertThat(messages).hasSize(1);
        GetResponse message = messages.get(0);
        assertThat(message.getProps().getDeliveryMode()).as("persistent").isEqualTo(2);
        assertThat(message.getProps().getMessageId()).isEqualTo(outboxId.toString());
        String id = header(message, "webhook-id");
        assertThat(id).isEqualTo(outboxId.toString());
        assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).contains("\"orderId\": 7");
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        id,
                        header(message, "webhook-timestamp"),
                        message.getBody(),
                        header(message, "webhook-signature")))
                .as("signed with the endpoint's secret")
                .isTrue();
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
    }

    @Test
    void anExchangeThatDoesNotExistDeadLettersAtOnceWithTheReason() {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        rabbitEndpoint("nowhere", new Destination.RabbitMq("no-such-exchange", ROUTING_KEY, null, null));

        UUID outboxId = harness.enqueue("order-8", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        assertThat(harness.count("SELECT count(*) FROM delivery_attempts")).isOne();
        String reason = harness.jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .one());
        assertThat(reason).contains("exchange \"no-such-exchange\" does not exist");
    }

    @Test
    void aBrokerThatBlocksPublishersIsAFailedAttemptAndTheMessageArrivesOnceItLetsThemThrough() throws Exception {
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 30),
                CircuitSettings.defaults().withFailureThreshold(0));
        rabbitEndpoint("orders", new Destination.RabbitMq(EXCHANGE, ROUTING_KEY, null, null));
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

        String firstError = harness.jdbi.withHandle(
                h -> h.createQuery("SELECT error FROM delivery_attempts ORDER BY attempt LIMIT 1")
                        .mapTo(String.class)
                        .one());
        assertThat(firstError).contains("flow control");
        // A publish the broker took just as it blocked is confirmed never: sent again, it arrives twice, with one id.
        assertThat(broker.drain(QUEUE))
                .isNotEmpty()
                .extracting(m -> header(m, "webhook-id"))
                .containsOnly(outboxId.toString());
    }

    @Test
    void anOrderedEndpointGetsAnAggregatesMessagesInOrderThroughABrokerOutage() throws Exception {
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 60),
                CircuitSettings.defaults().withFailureThreshold(0));
        rabbitEndpoint(
                "orders",
                new Destination.RabbitMq(EXCHANGE, ROUTING_KEY, null, null),
                new EndpointControls(null, null, null, true, EndpointControls.ENVELOPE));
        List<UUID> events = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            events.add(harness.enqueue("order-10", "{\"n\": " + n + "}"));
        }
        broker.stop();
        try {
            harness.start(events);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> harness.count("SELECT count(*) FROM delivery_attempts") >= 2);
        } finally {
            broker.startAgain();
        }

        harness.awaitAll(events, Duration.ofMinutes(3));

        // At least once: a publish whose confirm was lost as the broker went down arrives again, with its own id.
        assertThat(broker.drain(QUEUE).stream()
                        .map(m -> header(m, "webhook-id"))
                        .distinct())
                .as("in the order they were written")
                .containsExactlyElementsOf(events.stream().map(UUID::toString).toList());
    }

    @Test
    void aDeadLetterReplayedOnceTheExchangeExistsIsDelivered() throws Exception {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        rabbitEndpoint("late", new Destination.RabbitMq("orders-late", ROUTING_KEY, null, null));
        UUID outboxId = harness.enqueue("order-11", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DEAD_LETTERED'"))
                .isOne();

        try (Connection connection = broker.connect();
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare("orders-late", BuiltinExchangeType.DIRECT, true);
            channel.queueBind(QUEUE, "orders-late", ROUTING_KEY);
        }
        harness.replay(outboxId);

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
        assertThat(broker.drain(QUEUE))
                .singleElement()
                .satisfies(m -> assertThat(header(m, "webhook-id")).isEqualTo(outboxId.toString()));
    }

    private UUID rabbitEndpoint(String name, Destination destination) {
        return rabbitEndpoint(name, destination, EndpointControls.defaults());
    }

    private UUID rabbitEndpoint(String name, Destination destination, EndpointControls controls) {
        return harness.endpoint(name, broker.uri(), destination, controls);
    }
}
