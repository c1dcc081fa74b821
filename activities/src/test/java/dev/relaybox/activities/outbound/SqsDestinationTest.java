package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.SqsServer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Deliveries to SQS FIFO queues, on a real SQS-compatible server (ElasticMQ, SQS's limits): each target is a queue
 * whose name ends in {@code .fifo}, so every message is grouped by its aggregate and deduplicated by its webhook-id.
 */
class SqsDestinationTest extends BrokerDestinationContract {
    static SqsServer sqs;

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

    @Override
    void create(String name) {
        sqs.createQueue(name + ".fifo");
    }

    @Override
    String url(String name) {
        return sqs.queueUrl(name + ".fifo");
    }

    @Override
    Destination destination(String name) {
        return new Destination.Sqs(SqsServer.REGION, "test", "test");
    }

    @Override
    List<Received> received(String name) {
        return sqs.drain(url(name)).stream().map(SqsDestinationTest::received).toList();
    }

    @Override
    void stopBroker() {
        sqs.stop();
    }

    @Override
    void startBrokerAgain() {
        sqs.startAgain();
    }

    @Override
    void deliveredAs(Received message, String aggregateId) {
        assertThat(message.properties())
                .as("grouped by its aggregate, deduplicated by its webhook-id")
                .containsEntry(MessageSystemAttributeName.MESSAGE_GROUP_ID.toString(), aggregateId)
                .containsEntry(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID.toString(), message.webhookId());
    }

    private static Received received(Message message) {
        Map<String, String> attributes = new HashMap<>();
        message.messageAttributes().forEach((name, value) -> attributes.put(name, value.stringValue()));
        Map<String, String> properties = new HashMap<>();
        message.attributes().forEach((name, value) -> properties.put(name.toString(), value));
        return new Received(attributes, message.body().getBytes(StandardCharsets.UTF_8), properties);
    }
}
