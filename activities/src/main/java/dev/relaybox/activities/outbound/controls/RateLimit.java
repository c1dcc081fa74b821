package dev.relaybox.activities.outbound.controls;

import java.time.Duration;
import java.time.Instant;

/**
 * GCRA: the limit as a schedule. Each request takes the next slot, {@code 1/rate} after the previous one; up to
 * {@code burst} slots may be taken early. Over any window W at most {@code burst + rate * W} requests go.
 *
 * @param interval the time between two slots, {@code 1/rate}
 * @param tolerance how far ahead of its slot a request may go: {@code burst - 1} intervals
 */
public record RateLimit(Duration interval, Duration tolerance) {
    /** A request's slot: when it may go, and the schedule's next slot once it has taken this one. */
    public record Slot(Instant sendAt, Instant nextTat) {
        public Duration waitFrom(Instant now) {
            return Duration.between(now, sendAt);
        }
    }

    public static RateLimit of(double perSecond, int burst) {
        Duration interval = Duration.ofNanos(Math.round(1_000_000_000d / perSecond));
        return new RateLimit(interval, interval.multipliedBy(burst - 1L));
    }

    /**
     * The slot of a request asking at {@code now} when the schedule's next slot is {@code tat} ({@code null}: no
     * request yet, or the schedule was reset). A schedule left behind in the past starts again at {@code now}.
     */
    public Slot reserve(Instant tat, Instant now) {
        Instant from = tat == null || tat.isBefore(now) ? now : tat;
        Instant earliest = from.minus(tolerance);
        return new Slot(earliest.isAfter(now) ? earliest : now, from.plus(interval));
    }
}
