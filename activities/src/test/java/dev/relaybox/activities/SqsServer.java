package dev.relaybox.activities;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.elasticmq.StrictSQSLimits$;
import org.elasticmq.actor.QueueManagerActor;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.elasticmq.rest.sqs.TheSQSRestServerBuilder;
import org.elasticmq.util.NowProvider;
import scala.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A real SQS-compatible server of one test class (ElasticMQ, with SQS's own limits), on loopback. Its queues live
 * apart from its HTTP server, so the server can be stopped (connections refused) and started again on the same port
 * with its queues and messages, as an SQS outage looks to a client.
 */
public final class SqsServer implements AutoCloseable {
    public static final String REGION = "us-east-1";

    private final ActorSystem system = ActorSystem.create("elasticmq");
    private final ActorRef queues = system.actorOf(
            Props.create(QueueManagerActor.class, new NowProvider(), StrictSQSLimits$.MODULE$, Option.empty()));
    private final int port;
    private SQSRestServer server;

    private SqsServer() {
        server = builder().withDynamicPort().start();
        port = server.waitUntilStarted().localAddress().getPort();
    }

    public static SqsServer start() {
        return new SqsServer();
    }

    /** Where its queues' URLs start: {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Creates a queue, FIFO when its name ends in {@code .fifo}, and returns its URL. */
    public String createQueue(String name) {
        try (SqsClient client = client()) {
            return client.createQueue(b -> b.queueName(name)
                            .attributes(
                                    name.endsWith(".fifo") ? Map.of(QueueAttributeName.FIFO_QUEUE, "true") : Map.of()))
                    .queueUrl();
        }
    }

    /** The URL a queue of this name has, whether or not it exists. */
    public String queueUrl(String name) {
        return url() + "/000000000000/" + name;
    }

    /** A client of this server, as a consumer would have. */
    public SqsClient client() {
        return SqsClient.builder()
                .endpointOverride(URI.create(url()))
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** Every message waiting in the queue of {@code queueUrl}, in the order received, each taken off it. */
    public List<Message> drain(String queueUrl) {
        List<Message> messages = new ArrayList<>();
        try (SqsClient client = client()) {
            while (true) {
                List<Message> received = client.receiveMessage(r -> r.queueUrl(queueUrl)
                                .maxNumberOfMessages(10)
                                .messageAttributeNames("All")
                                .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                        .messages();
                if (received.isEmpty()) {
                    return messages;
                }
                for (Message message : received) {
                    messages.add(message);
                    client.deleteMessage(d -> d.queueUrl(queueUrl).receiptHandle(message.receiptHandle()));
                }
            }
        }
    }

    /** A message's attribute as text, or null. */
    public static String attribute(Message message, String name) {
        MessageAttributeValue value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }

    /** Stops taking connections; the queues and their messages stay. */
    public synchronized void stop() {
        if (server != null) {
            server.stopAndWait();
            server = null;
        }
    }

    /** Takes connections again on the same port after {@link #stop}. */
    public synchronized void startAgain() {
        server = builder().withPort(port).start();
        server.waitUntilStarted();
    }

    @Override
    public void close() {
        stop();
        system.terminate();
    }

    private TheSQSRestServerBuilder builder() {
        return SQSRestServerBuilder.withActorSystem(system)
                .withQueueManagerActor(queues)
                .withInterface("127.0.0.1")
                .withAWSRegion(REGION);
    }
}
