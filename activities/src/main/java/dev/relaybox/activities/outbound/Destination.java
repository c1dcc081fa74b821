package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where an endpoint's deliveries go when not to an HTTP URL: a broker, and what a publish to it needs. The endpoint's
 * {@code url} names the broker; this, credentials included, is stored in the endpoint's sealed {@code destination}
 * column and read back at every attempt. An endpoint without one is an HTTP endpoint.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Destination.RabbitMq.class, name = Destination.RabbitMq.TYPE),
    @JsonSubTypes.Type(value = Destination.Kafka.class, name = Destination.Kafka.TYPE),
    @JsonSubTypes.Type(value = Destination.Sqs.class, name = Destination.Sqs.TYPE)
})
public sealed interface Destination {
    ObjectMapper JSON = new ObjectMapper();

    /** The name in the API and the stored JSON: {@code rabbitmq}, {@code kafka} or {@code sqs}. */
    @JsonIgnore
    String type();

    /** The URL schemes that name this destination's broker. */
    @JsonIgnore
    Set<String> schemes();

    /** Why these settings cannot be used, or empty when they can. */
    Optional<String> problem();

    /** Why a tenant's endpoint cannot use these settings though the operator's could, or empty. */
    default Optional<String> tenantProblem() {
        return Optional.empty();
    }

    /**
     * A RabbitMQ exchange on the broker of an {@code amqp://} or {@code amqps://} URL (its path is the virtual host):
     * each webhook is one persistent message, published with {@code routingKey} and confirmed by the broker.
     * {@code username} and {@code password}: the broker's credentials, both or neither (then {@code guest}).
     */
    record RabbitMq(String exchange, String routingKey, String username, String password) implements Destination {
        public static final String TYPE = "rabbitmq";

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("amqp", "amqps");
        }

        @Override
        public Optional<String> problem() {
            if (exchange == null) {
                return Optional.of("destination.exchange is required (\"\" is the default exchange)");
            }
            if (exchange.length() > 255 || routingKey != null && routingKey.length() > 255) {
                return Optional.of("destination.exchange and destination.routingKey take at most 255 characters");
            }
            if ((username == null) != (password == null)) {
                return Optional.of("destination.username and destination.password go together");
            }
            return Optional.empty();
        }

        /** The routing key published with: the one set, or none. */
        public String routingKeyOrEmpty() {
            return routingKey == null ? "" : routingKey;
        }
    }

    /**
     * A Kafka topic on the cluster of a {@code kafka://} (plain) or {@code kafka+ssl://} (TLS) URL naming one
     * bootstrap server: each webhook is one record keyed by its event's aggregate id (one aggregate, one partition),
     * written by an idempotent producer with {@code acks=all}. {@code username} and {@code password}: SASL
     * credentials, both or neither; {@code saslMechanism} {@code PLAIN} (the default), {@code SCRAM-SHA-256} or
     * {@code SCRAM-SHA-512}.
     */
    record Kafka(String topic, String username, String password, String saslMechanism) implements Destination {
        public static final String TYPE = "kafka";
        private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
        private static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("kafka", "kafka+ssl");
        }

        @Override
        public Optional<String> problem() {
            if (topic == null || !TOPIC.matcher(topic).matches()) {
                return Optional.of("destination.topic is required: 1-249 letters, digits, '.', '_' or '-'");
            }
            if ((username == null) != (password == null)) {
                return Optional.of("destination.username and destination.password go together");
            }
            if (saslMechanism != null && (username == null || !MECHANISMS.contains(saslMechanism))) {
                return Optional.of(
                        "destination.saslMechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, with credentials");
            }
            return Optional.empty();
        }
    }

    /**
     * An Amazon SQS queue, its URL the endpoint's {@code url} ({@code https://sqs.<region>.amazonaws.com/<account>/<name>},
     * or an SQS-compatible server's): each webhook is one message; a FIFO queue (a name ending in {@code .fifo}) gets
     * the event's aggregate id as {@code MessageGroupId} and the {@code webhook-id} as {@code MessageDeduplicationId}.
     * {@code accessKeyId} and {@code secretAccessKey}: both, or neither to use the credentials Relaybox itself runs
     * with (its environment, profile or instance role).
     */
    record Sqs(String region, String accessKeyId, String secretAccessKey) implements Destination {
        public static final String TYPE = "sqs";
        private static final Pattern REGION = Pattern.compile("[a-z0-9-]{1,32}");

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public Set<String> schemes() {
            return EndpointUrlPolicy.HTTP;
        }

        @Override
        public Optional<String> problem() {
            if (region == null || !REGION.matcher(region).matches()) {
                return Optional.of("destination.region is required, as AWS names it (us-east-1)");
            }
            if ((accessKeyId == null) != (secretAccessKey == null)) {
                return Optional.of("destination.accessKeyId and destination.secretAccessKey go together");
            }
            return Optional.empty();
        }

        /** Without keys, Relaybox's own credentials would send: the operator's, not the tenant's. */
        @Override
        public Optional<String> tenantProblem() {
            if (accessKeyId == null) {
                return Optional.of("a tenant's SQS destination needs its own accessKeyId and secretAccessKey");
            }
            return Optional.empty();
        }

        /** Whether the queue of {@code url} is a FIFO queue. */
        public static boolean fifo(String url) {
            return url.endsWith(".fifo");
        }
    }

    /** As stored: the JSON this reads back from. */
    default String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What {@link #toJson} wrote, or empty for an HTTP endpoint (null). */
    static Optional<Destination> fromJson(String json) {
        if (json == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(json, Destination.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an endpoint's destination is not readable: " + e.getOriginalMessage(), e);
        }
    }
}
