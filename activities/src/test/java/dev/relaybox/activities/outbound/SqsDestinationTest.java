package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.SqsServer.attribute;
import static dev.relaybox.activities.outbound.OutboundHarness.schedule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.SqsServer;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Deliveries to SQS queues through the one delivery workflow: a real SQS-compatible server (ElasticMQ), a real
 * consumer with the AWS SDK, the workflow's real schedule on real time. Each test sends to a queue of its own.
 */
class SqsDestinationTest {
    static SqsServer sqs;
    OutboundHarness harness;

    @BeforeAll
    static void startServer() {
        sqs = SqsServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (sqs != null) {
            sqs.close();
        }
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aWebhookIsOneMessageAConsumerVerifiesAsItWouldAnHttpRequest() throws Exception {
        String queue = sqs.createQueue("orders");
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 3), CircuitSettings.defaults());
        UUID endpoint = sqsEndpoint("orders", queue, EndpointControls.defaults());
        String secret = harness.jdbi
                .withHandle(h -> h.attach(EndpointStore.class).find(endpoint).orElseThrow())
                .secret();

        UUID outboxId = harness.enqueue("order-7", "{\"orderId\": 7}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        List<Message> messages = sqs.drain(queue);
        assertThat(messages).hasSize(1);
        Message message = messages.get(0);
        assertThat(attribute(message, "webhook-id")).isEqualTo(outboxId.toString());
        assertThat(attribute(message, "webhook-event-type")).isEqualTo("order.updated");
        assertThat(message.body()).contains("\"orderId\": 7");
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        attribute(message, "webhook-id"),
                        attribute(message, "webhook-timestamp"),
                        message.body().getBytes(StandardCharsets.UTF_8),
                        attribute(message, "webhook-signature")))
                .as("signed with the endpoint's secret")
                .isTrue();
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
    }

    @Test
    void aQueueThatDoesNotExistDeadLettersAtOnceWithTheReason() {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        sqsEndpoint("nowhere", sqs.queueUrl("no-such-queue"), EndpointControls.defaults());

        UUID outboxId = harness.enqueue("order-8", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));

        assertThat(harness.count("SELECT count(*) FROM delivery_attempts")).isOne();
        String reason = harness.jdbi.withHandle(h -> h.createQuery("SELECT reason FROM dead_letters")
                .mapTo(String.class)
                .one());
        assertThat(reason).contains("no-such-queue").contains("does not exist");
    }

    @Test
    void aFifoQueueGetsAnAggregatesMessagesInOrderThroughAnOutageGroupedAndDeduplicatedByWebhook() {
        String queue = sqs.createQueue("orders.fifo");
        // Real time: the schedule's tries two seconds apart outlast the outage.
        harness = new OutboundHarness(
                false,
                schedule(Duration.ofSeconds(2), 60),
                CircuitSettings.defaults().withFailureThreshold(0));
        sqsEndpoint("orders", queue, new EndpointControls(null, null, null, true, EndpointControls.ENVELOPE));
        List<UUID> events = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            events.add(harness.enqueue("order-10", "{\"n\": " + n + "}"));
        }
        sqs.stop();
        try {
            harness.start(events);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> harness.count("SELECT count(*) FROM delivery_attempts") >= 2);
        } finally {
            sqs.startAgain();
        }

        harness.awaitAll(events, Duration.ofMinutes(3));

        List<Message> messages = sqs.drain(queue);
        assertThat(messages)
                .extracting(m -> attribute(m, "webhook-id"))
                .as("each once, in the order they were written")
                .containsExactlyElementsOf(events.stream().map(UUID::toString).toList());
        assertThat(messages)
                .allSatisfy(m -> assertThat(m.attributes())
                        .containsEntry(MessageSystemAttributeName.MESSAGE_GROUP_ID, "order-10")
                        .containsEntry(
                                MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID, attribute(m, "webhook-id")));
    }

    @Test
    void aDeadLetterReplayedOnceTheQueueExistsIsDelivered() {
        harness = new OutboundHarness(true, schedule(Duration.ofMinutes(1), 5), CircuitSettings.defaults());
        sqsEndpoint("late", sqs.queueUrl("orders-late"), EndpointControls.defaults());
        UUID outboxId = harness.enqueue("order-11", "{}");
        harness.start(List.of(outboxId));
        harness.awaitAll(List.of(outboxId));
        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DEAD_LETTERED'"))
                .isOne();

        String queue = sqs.createQueue("orders-late");
        harness.replay(outboxId);

        assertThat(harness.count("SELECT count(*) FROM deliveries WHERE status = 'DELIVERED'"))
                .isOne();
        assertThat(sqs.drain(queue))
                .singleElement()
                .satisfies(m -> assertThat(attribute(m, "webhook-id")).isEqualTo(outboxId.toString()));
    }

    private UUID sqsEndpoint(String name, String queueUrl, EndpointControls controls) {
        return harness.endpoint(name, queueUrl, new Destination.Sqs(SqsServer.REGION, "test", "test"), controls);
    }
}
