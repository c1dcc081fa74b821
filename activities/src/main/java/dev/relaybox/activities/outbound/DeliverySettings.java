package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;

/**
 * How outbound HTTP behaves.
 *
 * @param firstAttemptHold how long the first attempt of a delivery nothing holds may keep the workflow task that
 *     planned it (and made it) waiting for the answer; a slower receiver's request goes on, and a regular activity on
 *     the same worker waits for its answer, up to {@code requestTimeout} in all.
 * @param addresses where webhooks may be sent
 * @param responseExcerptBytes how much of a response body is read and kept; the rest is never read
 */
public record DeliverySettings(
        DeliverySchedule schedule,
        Duration connectTimeout,
        Duration requestTimeout,
        Duration firstAttemptHold,
        AddressPolicy addresses,
        int responseExcerptBytes,
        String userAgent) {

    public static DeliverySettings defaults() {
        return new DeliverySettings(
                DeliverySchedule.defaults(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(15),
                Duration.ofSeconds(1),
                AddressPolicy.publicOnly(),
                2048,
                "Relaybox/" + version());
    }

    public DeliverySettings withSchedule(DeliverySchedule schedule) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, firstAttemptHold, addresses, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withAddresses(AddressPolicy policy) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, firstAttemptHold, policy, responseExcerptBytes, userAgent);
    }

    /** Public addresses and the comma-separated CIDR blocks {@code cidrs} ({@code "127.0.0.0/8"}). */
    public DeliverySettings withAllowedPrivateNetworks(String cidrs) {
        return withAddresses(AddressPolicy.allowing(cidrs));
    }

    public DeliverySettings withTimeouts(Duration connect, Duration request) {
        return new DeliverySettings(
                schedule, connect, request, firstAttemptHold, addresses, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withFirstAttemptHold(Duration hold) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, hold, addresses, responseExcerptBytes, userAgent);
    }

    public static String version() {
        String version = DeliverySettings.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
