package dev.relaybox.activities.outbound;

import static dev.relaybox.activities.outbound.BrokerAnswers.confirmed;
import static dev.relaybox.activities.outbound.BrokerAnswers.permanent;
import static dev.relaybox.activities.outbound.BrokerAnswers.retryable;

import dev.relaybox.activities.RedactedUrl;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes webhooks to Kafka topics: one record per attempt, keyed by the event's aggregate id, from an idempotent
 * producer with {@code acks=all}; the broker's acknowledgement is the attempt's 2xx. A cluster that cannot be reached
 * or does not acknowledge within {@code requestTimeout} is a failed attempt, retried on the schedule; a topic that does
 * not exist, refused credentials or rights, or a record the broker will never take dead-letter at once. One producer
 * per cluster and credentials, kept open between attempts.
 */
final class KafkaPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);

    private final DeliverySettings settings;
    private final EndpointUrlPolicy urlPolicy;
    private final Map<String, KafkaProducer<String, byte[]>> producers = new ConcurrentHashMap<>();

    KafkaPublisher(DeliverySettings settings, EndpointUrlPolicy urlPolicy) {
        this.settings = settings;
        this.urlPolicy = urlPolicy;
    }

    WebhookSender.Sent publish(String url, Destination.Kafka destination, BrokerMessage message) {
        long started = System.nanoTime();
        ProducerRecord<String, byte[]> record =
                new ProducerRecord<>(destination.topic(), null, message.key(), message.body(), headers(message));
        // Credentials in the key: a changed password makes a new producer at once, not at its next reconnect.
        String key =
                String.join("\n", url, destination.username(), destination.password(), destination.saslMechanism());
        try {
            KafkaProducer<String, byte[]> producer = producer(key, url, destination);
            // Bounded by the producer's own timeouts: max.block.ms to send, delivery.timeout.ms to be acknowledged.
            producer.send(record).get();
            return confirmed(started);
        } catch (ExecutionException e) {
            return failed(started, e.getCause(), url, destination, key);
        } catch (KafkaException e) {
            return failed(started, e, url, destination, key);
        } catch (EndpointUrlPolicy.RefusedAddressException e) {
            return permanent(started, StorableText.of(e.getMessage()));
        } catch (UnknownHostException e) {
            return retryable(started, "host " + URI.create(url).getHost() + " does not resolve");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return retryable(started, "interrupted");
        }
    }

    private WebhookSender.Sent failed(
            long started, Throwable cause, String url, Destination.Kafka destination, String key) {
        if (cause instanceof AuthenticationException || cause instanceof AuthorizationException) {
            return permanent(started, "the broker refused: " + cause.getMessage());
        }
        if (cause instanceof RecordTooLargeException || cause instanceof InvalidTopicException) {
            return permanent(started, StorableText.of(cause.getMessage()));
        }
        if (cause instanceof TimeoutException) {
            // A topic that does not exist looks like a cluster that does not answer: the producer waits for its
            // metadata until it gives up. The cluster, if it answers, tells them apart.
            if (topicMissing(url, destination)) {
                return permanent(started, "topic \"" + destination.topic() + "\" does not exist");
            }
            return retryable(
                    started,
                    "the broker did not acknowledge within "
                            + settings.requestTimeout().toSeconds() + "s: " + cause.getMessage());
        }
        if (!(cause instanceof RetriableException)) {
            // A producer that failed for good (fenced, out of sequence) is made again for the next attempt.
            KafkaProducer<String, byte[]> broken = producers.remove(key);
            if (broken != null) {
                broken.close(Duration.ZERO);
            }
            LOG.warn("publish to {} failed", RedactedUrl.of(url), cause);
        }
        return retryable(started, "could not publish: " + cause);
    }

    /**
     * The open producer for these credentials; a new one, its bootstrap address resolved and checked, only when there
     * is none (every attempt after the first reuses it and its connections).
     */
    private KafkaProducer<String, byte[]> producer(String key, String url, Destination.Kafka destination)
            throws UnknownHostException {
        KafkaProducer<String, byte[]> open = producers.get(key);
        if (open != null) {
            return open;
        }
        Map<String, Object> config = producerConfig(url, destination);
        return producers.computeIfAbsent(key, k -> new KafkaProducer<>(config));
    }

    /** Whether the cluster answers that the topic does not exist; false when it does not answer. */
    private boolean topicMissing(String url, Destination.Kafka destination) {
        try (Admin admin = Admin.create(clientConfig(url, destination))) {
            DescribeTopicsOptions within = new DescribeTopicsOptions()
                    .timeoutMs((int) settings.requestTimeout().toMillis());
            admin.describeTopics(List.of(destination.topic()), within)
                    .allTopicNames()
                    .get();
            return false;
        } catch (ExecutionException e) {
            return e.getCause() instanceof UnknownTopicOrPartitionException;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (UnknownHostException | KafkaException e) {
            return false;
        }
    }

    private Map<String, Object> producerConfig(String url, Destination.Kafka destination) throws UnknownHostException {
        Map<String, Object> config = clientConfig(url, destination);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        int timeoutMs = (int) settings.requestTimeout().toMillis();
        // The wait for a topic's partitions: milliseconds from a cluster that answers.
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int)
                settings.connectTimeout().toMillis());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return config;
    }

    /** Where the cluster is and how to talk to it: what a producer and an admin client both need. */
    private Map<String, Object> clientConfig(String url, Destination.Kafka destination) throws UnknownHostException {
        URI uri = URI.create(url);
        boolean tls = "kafka+ssl".equalsIgnoreCase(uri.getScheme());
        int port = EndpointUrlPolicy.port(uri);
        // Resolved and checked once; a plain connection then bootstraps from exactly what was checked, a TLS one from
        // the name its certificate must match. The brokers the cluster then names are the cluster's own.
        String address =
                urlPolicy.connectableAddresses(uri.getHost(), port).get(0).getHostAddress();
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, (tls ? uri.getHost() : address) + ":" + port);
        int timeoutMs = (int) settings.requestTimeout().toMillis();
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(
                CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG,
                settings.connectTimeout().toMillis());
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        if (destination.username() != null) {
            String mechanism = destination.saslMechanism() == null ? "PLAIN" : destination.saslMechanism();
            String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, tls ? "SASL_SSL" : "SASL_PLAINTEXT");
            config.put(SaslConfigs.SASL_MECHANISM, mechanism);
            config.put(
                    SaslConfigs.SASL_JAAS_CONFIG,
                    module + " required username=\"" + jaasQuoted(destination.username()) + "\" password=\""
                            + jaasQuoted(destination.password()) + "\";");
        } else {
            config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, tls ? "SSL" : "PLAINTEXT");
        }
        return config;
    }

    private static String jaasQuoted(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static List<Header> headers(BrokerMessage message) {
        return message.headers().entrySet().stream()
                .map(h -> (Header) new RecordHeader(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8)))
                .toList();
    }
}
