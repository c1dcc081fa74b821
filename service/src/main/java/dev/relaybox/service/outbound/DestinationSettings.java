package dev.relaybox.service.outbound;

import dev.relaybox.activities.outbound.Destination;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * An endpoint's broker destination as the API takes it: where the endpoint's {@code url} ({@code amqp://} or
 * {@code amqps://}, its path the virtual host) sends, and the broker's credentials, which are sealed at rest and never
 * shown again.
 */
@Schema(description = "a broker to publish to instead of an HTTP POST; the endpoint's url names the broker")
public record DestinationSettings(
        @NotNull @Pattern(regexp = Destination.RabbitMq.TYPE, message = "must be \"rabbitmq\"")
        String type,

        @NotNull @Size(max = 255) @Schema(description = "the exchange; \"\" is the default exchange")
        String exchange,

        @Size(max = 255) String routingKey,
        @Size(max = 255) String username,
        @Size(max = 1000) String password) {
    Destination destination() {
        return new Destination.RabbitMq(exchange, routingKey, username, password);
    }

    /** What an answer shows of a stored destination: everything but the password. */
    @Schema(name = "DestinationView", description = "where the endpoint publishes; the password is never shown")
    public record View(String type, String exchange, String routingKey, String username) {
        static View of(Destination destination) {
            Destination.RabbitMq rabbit = (Destination.RabbitMq) destination;
            return new View(rabbit.type(), rabbit.exchange(), rabbit.routingKey(), rabbit.username());
        }
    }
}
