package dev.relaybox.workflows.outbound;

import java.time.Duration;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * When to try again. The first attempt is immediate; {@code delays.get(i)} is the wait before attempt
 * {@code i + 2}; when they are spent the delivery is dead-lettered. {@code jitter} spreads each wait by
 * up to that fraction either way so a recovering receiver is not hit by every retry at once.
 * A receiver's {@code Retry-After} replaces the scheduled wait, clamped to {@code maxRetryAfter}.
 */
public record DeliverySchedule(List<Duration> delays, double jitter, Duration maxRetryAfter) {
    public DeliverySchedule {
        delays = List.copyOf(delays);
        if (jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("jitter must be in [0, 1), was " + jitter);
        }
    }

    /** The seeds' schedule: immediately, +1m, +5m, +15m, then dead letter. */
    public static DeliverySchedule defaults() {
        return new DeliverySchedule(
                List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)),
                0.1,
                Duration.ofHours(1));
    }

    public int maxAttempts() {
        return delays.size() + 1;
    }

    /**
     * How long to wait after failed attempt number {@code attempt}: the receiver's {@code Retry-After} when it sent
     * one, clamped so a hostile header cannot park a delivery for a year; otherwise the scheduled delay spread by the
     * jitter. {@code random} (uniform in [0, 1)) is drawn only for the scheduled delay.
     */
    public Duration waitAfter(int attempt, AttemptResult result, DoubleSupplier random) {
        if (result.hasRetryAfter()) {
            return Duration.ofSeconds(Math.min(result.retryAfterSeconds(), maxRetryAfter.toSeconds()));
        }
        Duration base = delays.get(attempt - 1);
        double spread = jitter * (2 * random.getAsDouble() - 1);
        return Duration.ofMillis(Math.round(base.toMillis() * (1 + spread)));
    }
}
