package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;

/**
 * How outbound HTTP behaves.
 *
 * @param responseExcerptBytes how much of a response body is read and kept; the rest is never read
 */
public record DeliverySettings(
        DeliverySchedule schedule,
        Duration connectTimeout,
        Duration requestTimeout,
        boolean allowPrivateNetworks,
        int responseExcerptBytes,
        String userAgent) {

    public static DeliverySettings defaults() {
        return new DeliverySettings(
                DeliverySchedule.defaults(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(15),
                false,
                2048,
                "Relaybox/" + version());
    }

    public DeliverySettings withSchedule(DeliverySchedule schedule) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, allowPrivateNetworks, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withAllowPrivateNetworks(boolean allow) {
        return new DeliverySettings(schedule, connectTimeout, requestTimeout, allow, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withTimeouts(Duration connect, Duration request) {
        return new DeliverySettings(schedule, connect, request, allowPrivateNetworks, responseExcerptBytes, userAgent);
    }

    public static String version() {
        String version = DeliverySettings.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
