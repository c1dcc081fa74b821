package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import java.util.Set;

/**
 * Where an endpoint's deliveries go when not to an HTTP URL: a broker, and what a publish to it needs. The endpoint's
 * {@code url} names the broker; this, credentials included, is stored in the endpoint's sealed {@code destination}
 * column and read back at every attempt. An endpoint without one is an HTTP endpoint.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({@JsonSubTypes.Type(value = Destination.RabbitMq.class, name = Destination.RabbitMq.TYPE)})
public sealed interface Destination {
    ObjectMapper JSON = new ObjectMapper();

    /** The name in the API and the stored JSON: {@code rabbitmq}. */
    @JsonIgnore
    String type();

    /** The URL schemes that name this destination's broker. */
    @JsonIgnore
    Set<String> schemes();

    /** Why these settings cannot be used, or empty when they can. */
    Optional<String> problem();

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
