package dev.relaybox.service.outbound;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.relaybox.activities.outbound.Destination;
import dev.relaybox.service.api.ApiException;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An endpoint's broker destination as the API takes it: what the endpoint's {@code url} names ({@code amqp://} or
 * {@code amqps://} a RabbitMQ broker, its path the virtual host; {@code kafka://} or {@code kafka+ssl://} a Kafka
 * bootstrap server; an SQS queue URL), the settings of its type, and its credentials, which are sealed at rest and
 * never shown again. A setting of another type is refused, not ignored.
 */
@Schema(description = "a broker to publish to instead of an HTTP POST; the endpoint's url names the broker or queue")
public record DestinationSettings(
        @NotNull @Pattern(regexp = "rabbitmq|kafka|sqs", message = "must be \"rabbitmq\", \"kafka\" or \"sqs\"")
        String type,

        @Size(max = 255) @Schema(description = "rabbitmq: the exchange; \"\" is the default exchange")
        String exchange,

        @Size(max = 255) @Schema(description = "rabbitmq: the routing key")
        String routingKey,

        @Size(max = 255) @Schema(description = "kafka: the topic")
        String topic,

        @Size(max = 32) @Schema(description = "kafka: PLAIN (the default), SCRAM-SHA-256 or SCRAM-SHA-512")
        String saslMechanism,

        @Size(max = 32) @Schema(description = "sqs: the queue's region, e.g. us-east-1")
        String region,

        @Size(max = 255) @Schema(description = "rabbitmq: the broker's user; kafka: the SASL user")
        String username,

        @Size(max = 1000) String password,

        @Size(max = 128) @Schema(description = "sqs: an access key; none: the credentials Relaybox runs with")
        String accessKeyId,

        @Size(max = 1000) String secretAccessKey) {
    private static final Map<String, Set<String>> SETTINGS = Map.of(
            Destination.RabbitMq.TYPE, Set.of("exchange", "routingKey", "username", "password"),
            Destination.Kafka.TYPE, Set.of("topic", "saslMechanism", "username", "password"),
            Destination.Sqs.TYPE, Set.of("region", "accessKeyId", "secretAccessKey"));

    /** Refuses {@code settings} (when given) of a type not among {@code allowedTypes}: 403. */
    public static void checkAllowed(DestinationSettings settings, Set<String> allowedTypes) {
        if (settings != null && !allowedTypes.contains(settings.type())) {
            throw new ApiException(
                    403,
                    "destination_not_allowed",
                    allowedTypes.isEmpty()
                            ? "endpoints here deliver over HTTP only; ask your provider for a broker destination"
                            : "destination.type must be one of " + String.join(", ", new TreeSet<>(allowedTypes)));
        }
    }

    /** The destination these settings describe; a setting its type does not have is refused. */
    Destination destination() {
        Map<String, String> given = new LinkedHashMap<>();
        given.put("exchange", exchange);
        given.put("routingKey", routingKey);
        given.put("topic", topic);
        given.put("saslMechanism", saslMechanism);
        given.put("region", region);
        given.put("username", username);
        given.put("password", password);
        given.put("accessKeyId", accessKeyId);
        given.put("secretAccessKey", secretAccessKey);
        given.forEach((name, value) -> {
            if (value != null && !SETTINGS.get(type).contains(name)) {
                throw new ApiException(
                        422,
                        "destination_invalid",
                        "destination." + name + " is not a setting of a " + type + " destination");
            }
        });
        return switch (type) {
            case Destination.RabbitMq.TYPE -> new Destination.RabbitMq(exchange, routingKey, username, password);
            case Destination.Kafka.TYPE -> new Destination.Kafka(topic, username, password, saslMechanism);
            default -> new Destination.Sqs(region, accessKeyId, secretAccessKey);
        };
    }

    /**
     * What an answer shows of a stored destination: its settings, never a password or secret key, and a summary the
     * admin page and the portal show beside the endpoint's URL ("Kafka topic orders").
     */
    @Schema(
            name = "DestinationView",
            description = "where the endpoint publishes; passwords and secret keys are never shown")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record View(
            String type,
            String exchange,
            String routingKey,
            String topic,
            String saslMechanism,
            String region,
            String username,
            String accessKeyId,
            String summary) {
        static View of(Destination destination) {
            if (destination instanceof Destination.RabbitMq rabbit) {
                return new View(
                        rabbit.type(),
                        rabbit.exchange(),
                        rabbit.routingKey(),
                        null,
                        null,
                        null,
                        rabbit.username(),
                        null,
                        "RabbitMQ exchange \"" + rabbit.exchange() + "\""
                                + (rabbit.routingKey() == null ? "" : ", routing key " + rabbit.routingKey()));
            }
            if (destination instanceof Destination.Kafka kafka) {
                return new View(
                        kafka.type(),
                        null,
                        null,
                        kafka.topic(),
                        kafka.saslMechanism(),
                        null,
                        kafka.username(),
                        null,
                        "Kafka topic " + kafka.topic());
            }
            Destination.Sqs sqs = (Destination.Sqs) destination;
            return new View(sqs.type(), null, null, null, null, sqs.region(), null, sqs.accessKeyId(), "SQS queue");
        }
    }
}
