package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.DeliverySchedule;
import java.time.Duration;

/**
 * How outbound HTTP behaves.
 *
 * @param firstAttemptTimeout how long the first attempt of a delivery nothing holds waits for its answer: it is made
 *     inside the workflow task that planned it, which a slow receiver must not hold for long. A receiver slower than
 *     this gets the attempt again at once, with {@code requestTimeout}, without it counting against the schedule.
 * @param addresses where webhooks may be sent
 * @param responseExcerptBytes how much of a response body is read and kept; the rest is never read
 */
public record DeliverySettings(
        DeliverySchedule schedule,
        Duration connectTimeout,
        Duration requestTimeout,
        Duration firstAttemptTimeout,
        AddressPolicy addresses,
        int responseExcerptBytes,
        String userAgent) {

    public static DeliverySettings defaults() {
        return new DeliverySettings(
                DeliverySchedule.defaults(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(15),
                Duration.ofSeconds(5),
                AddressPolicy.publicOnly(),
                2048,
                "Relaybox/" + version());
    }

    public DeliverySettings withSchedule(DeliverySchedule schedule) {
        return new DeliverySettings(
                schedule,
                connectTimeout,
                requestTimeout,
                firstAttemptTimeout,
                addresses,
                responseExcerptBytes,
                userAgent);
    }

    public DeliverySettings withAddresses(AddressPolicy policy) {
        return new DeliverySettings(
                schedule, connectTimeout, requestTimeout, firstAttemptTimeout, policy, responseExcerptBytes, userAgent);
    }

    /** Public addresses and the comma-separated CIDR blocks {@code cidrs} ({@code "127.0.0.0/8"}). */
    public DeliverySettings withAllowedPrivateNetworks(String cidrs) {
        return withAddresses(AddressPolicy.allowing(cidrs));
    }

    /** The first attempt waits at most as long as every other. */
    public DeliverySettings withTimeouts(Duration connect, Duration request, Duration firstAttempt) {
        Duration first = firstAttempt.compareTo(request) < 0 ? firstAttempt : request;
        return new DeliverySettings(schedule, connect, request, first, addresses, responseExcerptBytes, userAgent);
    }

    public DeliverySettings withTimeouts(Duration connect, Duration request) {
        return withTimeouts(connect, request, firstAttemptTimeout);
    }

    public static String version() {
        String version = DeliverySettings.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
