package dev.relaybox.bench;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.relaybox.activities.KafkaBroker;
import dev.relaybox.activities.RabbitBroker;
import dev.relaybox.activities.SqsServer;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Outbound to each destination type, one after the other in the same run: the same outbox rows to an HTTP receiver
 * answering 200, a RabbitMQ exchange, a Kafka topic and an SQS queue (real brokers on loopback: Debian's
 * rabbitmq-server, a KRaft broker in its own JVM, ElasticMQ in the bench's), each read by a consumer in the bench
 * that notes when each {@code webhook-id} first arrives.
 */
final class DestinationsScenario {
    static final String TITLE = "Outbound per destination type";
    private static final String HTTP_PATH = "/destinations";

    private final Context ctx;

    DestinationsScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        Admin admin = new Admin(ctx.relaybox);
        Path home = Files.createTempDirectory("relaybox-bench-brokers");
        Files.createDirectories(home.resolve("rabbitmq"));
        Files.createDirectories(home.resolve("kafka"));
        AtomicBoolean consuming = new AtomicBoolean(true);
        List<Thread> consumers = new ArrayList<>();
        List<String> endpointIds = new ArrayList<>();
        Map<String, Run> runs = new LinkedHashMap<>();
        try (RabbitBroker rabbit = RabbitBroker.start(home.resolve("rabbitmq"));
                KafkaBroker kafka = KafkaBroker.start(home.resolve("kafka"));
                SqsServer sqs = SqsServer.start()) {
            Map<String, Long> http = ctx.receiver.reset(HTTP_PATH, 200).firstArrival;
            endpointIds.add(admin.registerEndpoint(
                    ctx.runId + "-dest-http", ctx.receiver.url(HTTP_PATH), "[\"destination.http\"]"));

            Map<String, Long> atRabbit = new ConcurrentHashMap<>();
            Connection connection = rabbit.connect();
            Channel channel = connection.createChannel();
            channel.exchangeDeclare("bench", BuiltinExchangeType.DIRECT, true);
            channel.queueDeclare("bench", true, false, false, null);
            channel.queueBind("bench", "bench", "bench");
            channel.basicConsume(
                    "bench",
                    true,
                    (tag, message) -> atRabbit.putIfAbsent(
                            message.getProperties()
                                    .getHeaders()
                                    .get("webhook-id")
                                    .toString(),
                            System.nanoTime()),
                    tag -> {});
            endpointIds.add(admin.registerEndpoint(
                    ctx.runId + "-dest-rabbitmq",
                    rabbit.uri(),
                    "[\"destination.rabbitmq\"]",
                    "{\"type\":\"rabbitmq\",\"exchange\":\"bench\",\"routingKey\":\"bench\"}"));

            Map<String, Long> atKafka = new ConcurrentHashMap<>();
            kafka.createTopic("bench", 3);
            consumers.add(consume("kafka", () -> kafkaConsumer(kafka, atKafka, consuming)));
            endpointIds.add(admin.registerEndpoint(
                    ctx.runId + "-dest-kafka",
                    kafka.url(),
                    "[\"destination.kafka\"]",
                    "{\"type\":\"kafka\",\"topic\":\"bench\"}"));

            Map<String, Long> atSqs = new ConcurrentHashMap<>();
            String queue = sqs.createQueue("bench");
            consumers.add(consume("sqs", () -> sqsConsumer(sqs, queue, atSqs, consuming)));
            endpointIds.add(admin.registerEndpoint(
                    ctx.runId + "-dest-sqs",
                    queue,
                    "[\"destination.sqs\"]",
                    "{\"type\":\"sqs\",\"region\":\"" + SqsServer.REGION
                            + "\",\"accessKeyId\":\"test\",\"secretAccessKey\":\"test\"}"));

            Map<String, Map<String, Long>> arrivals = new LinkedHashMap<>();
            arrivals.put("http", http);
            arrivals.put("rabbitmq", atRabbit);
            arrivals.put("kafka", atKafka);
            arrivals.put("sqs", atSqs);
            for (Map.Entry<String, Map<String, Long>> type : arrivals.entrySet()) {
                deliveries(type.getKey(), o.warmup, "w", type.getValue());
                ctx.settle();
                Cpu.Snapshot before = Cpu.now();
                Run run = deliveries(type.getKey(), o.n, "", type.getValue());
                ctx.settle();
                runs.put(type.getKey(), run);
                ctx.report.note(TITLE, type.getKey() + ": " + Cpu.between(before, Cpu.now()) + ".");
            }
            channel.close();
            connection.close();
        } finally {
            consuming.set(false);
            for (Thread consumer : consumers) {
                consumer.join(10_000);
            }
            for (String id : endpointIds) {
                admin.disableEndpoint(id);
            }
        }
        ctx.workflowsRun += 4 * (o.warmup + o.n);

        Report r = ctx.report;
        Run http = runs.get("http");
        for (Map.Entry<String, Run> run : runs.entrySet()) {
            if (!run.getKey().equals("http")) {
                r.metric(TITLE, run.getKey() + " delivered/s", run.getValue().perSecond(), http.perSecond(), "HTTP");
                r.metric(
                        TITLE,
                        run.getKey() + " enqueue→receipt p50 ms",
                        run.getValue().latencies().percentileMs(50),
                        http.latencies().percentileMs(50),
                        "HTTP");
            }
        }
        r.metric(TITLE, "http delivered/s", http.perSecond(), Double.NaN, "");
        r.fact(
                TITLE,
                "lost deliveries (http / rabbitmq / kafka / sqs)",
                runs.values().stream()
                        .map(run -> Integer.toString(run.failures()))
                        .reduce((a, b) -> a + " / " + b)
                        .orElse(""),
                "0 / 0 / 0 / 0");
        r.note(
                TITLE,
                String.format(
                        Locale.ROOT,
                        "%d outbox rows per type (after %d to warm up), enqueued by %d producer threads with Outbox.enqueue, to "
                                + "one endpoint of that type; rate = rows / (last first-arrival − first enqueue). HTTP: the bench's "
                                + "receiver; RabbitMQ: a durable queue bound to the exchange, consumed with auto-ack; Kafka: a topic "
                                + "of 3 partitions, acks=all; SQS: a standard queue, long-polled 10 at a time and deleted in batches.",
                        o.n,
                        o.warmup,
                        o.concurrency));
    }

    private Run deliveries(String type, int count, String suffix, Map<String, Long> arrivals) throws Exception {
        String prefix = ctx.runId + "-dest-" + type + suffix;
        return EndToEnd.run(
                ctx,
                type + " deliveries",
                count,
                0,
                i -> ctx.jdbi()
                        .inTransaction(h -> Outbox.enqueue(
                                h,
                                new OutboxEvent(
                                        "destination." + type,
                                        "bench",
                                        prefix + "-" + i,
                                        "{\"orderId\":\"" + prefix + "-" + i + "\",\"note\":\"relaybox benchmark\"}")))
                        .toString(),
                arrivals);
    }

    private static Thread consume(String name, Runnable loop) {
        Thread thread = new Thread(loop, "bench-consumer-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void kafkaConsumer(KafkaBroker kafka, Map<String, Long> arrivals, AtomicBoolean consuming) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor("bench").stream()
                    .map(p -> new TopicPartition("bench", p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (consuming.get()) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    long now = System.nanoTime();
                    arrivals.putIfAbsent(
                            new String(record.headers().lastHeader("webhook-id").value(), StandardCharsets.UTF_8), now);
                });
            }
        }
    }

    private static void sqsConsumer(SqsServer sqs, String queue, Map<String, Long> arrivals, AtomicBoolean consuming) {
        try (SqsClient client = sqs.client()) {
            while (consuming.get()) {
                List<Message> messages = client.receiveMessage(r -> r.queueUrl(queue)
                                .maxNumberOfMessages(10)
                                .waitTimeSeconds(1)
                                .messageAttributeNames("webhook-id"))
                        .messages();
                long now = System.nanoTime();
                for (Message message : messages) {
                    arrivals.putIfAbsent(SqsServer.attribute(message, "webhook-id"), now);
                }
                if (!messages.isEmpty()) {
                    client.deleteMessageBatch(d -> d.queueUrl(queue)
                            .entries(messages.stream()
                                    .map(m -> DeleteMessageBatchRequestEntry.builder()
                                            .id(m.messageId())
                                            .receiptHandle(m.receiptHandle())
                                            .build())
                                    .toList()));
                }
            }
        }
    }
}
