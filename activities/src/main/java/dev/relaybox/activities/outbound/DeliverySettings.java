package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;

/**
 * How outbound HTTP behaves.
 *
 * @param addresses where webhooks may be sent
 * @param responseExcerptBytes how much of a response body is read and kept; the rest is never read
 */
public record DeliverySettings(
        DeliverySchedule schedule,
        Duration connectTimeout,
        Duration requestTimeout,
        AddressPolicy addresses,
        int responseExcerptBytes,
        String userAgent) {

    public static DeliverySettings defaults() {
        return new DeliverySettings(
                DeliverySchedule.defaults(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(15),
                AddressPolicy.publicOnly(),
                2048,
                "Relaybox/" + version());
    }

    public DeliverySettings withSchedule(DeliverySchedule schedule) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, addresses, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withAddresses(AddressPolicy policy) {
        return new DeliverySettings(schedule, connectTimeout, requestTimeout, policy, responseExcerptBytes, userAgent);
    }

    /** Public addresses and the comma-separated CIDR blocks {@code cidrs} ({@code "127.0.0.0/8"}). */
    public DeliverySettings withAllowedPrivateNetworks(String cidrs) {
        return withAddresses(AddressPolicy.allowing(cidrs));
    }

    public DeliverySettings withTimeouts(Duration connect, Duration request) {
        return new DeliverySettings(schedule, connect, request, addresses, responseExcerptBytes, userAgent);
    }

    public static String version() {
        String version = DeliverySettings.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
