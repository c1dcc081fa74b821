package dev.relaybox.activities;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker of one test class, in KRaft mode (broker and controller in one process), from Maven Central's
 * Kafka artifacts on the test's own class path, as a separate JVM: its own ports and log directory, on loopback,
 * topics created only when asked. It can be stopped (connections refused) and started again on the same port and
 * data, as a broker restart looks to its clients.
 */
public final class KafkaBroker implements AutoCloseable {

    /** The one SASL/PLAIN user of its SASL listener, and its password. */
    public static final String SASL_USER = "relaybox";

    public static final String SASL_PASSWORD = "relaybox-secret";

    private final Path home;
    private final int port;
    private final int saslPort;
    private volatile Process process;

    private KafkaBroker(Path home) throws IOException {
        this.home = home;
        this.port = BrokerPorts.free();
        this.saslPort = BrokerPorts.free();
        int controllerPort = BrokerPorts.free();
        Files.writeString(
                home.resolve("server.properties"),
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort
                                + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:"
                                + saslPort,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                + "CONTROLLER:PLAINTEXT",
                        "listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN",
                        "listener.name.sasl_plaintext.plain.sasl.jaas.config="
                                + "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + SASL_USER
                                + "=\"" + SASL_PASSWORD + "\";",
                        "log.dirs=" + home.resolve("data"),
                        "num.partitions=3",
                        "auto.create.topics.enable=false",
                        "offsets.topic.replication.factor=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        "group.initial.rebalance.delay.ms=0",
                        ""));
    }

    /** Formats a log directory in {@code home}, starts a broker on it and waits until it takes connections. */
    public static KafkaBroker start(Path home) throws IOException {
        KafkaBroker broker = new KafkaBroker(home);
        String data = home.resolve("data").toString();
        try {
            // What kafka-storage.sh format does, without its command line (whose parser Dropwizard pins elsewhere).
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(1)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(List.of(data))
                    .setMetadataLogDirectory(data)
                    .setControllerListenerName("CONTROLLER")
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                    .run();
        } catch (Exception e) {
            throw new IOException("could not format the broker's storage", e);
        }
        broker.startAgain();
        return broker;
    }

    /** {@code kafka://127.0.0.1:<port>}: the URL an endpoint names the broker by. */
    public String url() {
        return "kafka://" + bootstrapServers();
    }

    /** {@code kafka://127.0.0.1:<port>} of its SASL/PLAIN listener. */
    public String saslUrl() {
        return "kafka://127.0.0.1:" + saslPort;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Creates {@code topic} with {@code partitions} partitions. */
    public void createTopic(String topic, int partitions) throws IOException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("could not create topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** Every record in {@code topic}, partition by partition, each in the order it was written. */
    public List<ConsumerRecord<String, byte[]>> records(String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
            return records;
        }
    }

    /** A record's header as text, or null. */
    public static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Starts it again on the same port and data after {@link #stop}. */
    public synchronized void startAgain() throws IOException {
        process = java("kafka.Kafka", home.resolve("server.properties").toString())
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("server.log").toFile()))
                .start();
        BrokerPorts.awaitListening(process, port, "the Kafka broker", home.resolve("server.log"));
    }

    /** Stops the broker: every connection ends and new ones are refused until {@link #startAgain}. */
    public synchronized void stop() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            return;
        }
        running.destroy();
        try {
            if (!running.waitFor(60, TimeUnit.SECONDS)) {
                running.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }

    private ProcessBuilder java(String mainClass, String... arguments) {
        String java = ProcessHandle.current().info().command().orElse("java");
        // Surefire starts tests from a manifest-only jar; the class path proper is in this property.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(
                List.of(java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, mainClass));
        command.addAll(List.of(arguments));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }
}
