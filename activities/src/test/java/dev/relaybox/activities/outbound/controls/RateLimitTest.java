package dev.relaybox.activities.outbound.controls;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateLimitTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** Every request asking at {@code now} at once: the times they are given to send, from a fresh schedule. */
    static List<Instant> sendTimes(RateLimit limit, int requests, Instant now) {
        List<Instant> times = new ArrayList<>();
        Instant tat = null;
        for (int i = 0; i < requests; i++) {
            RateLimit.Slot slot = limit.reserve(tat, now);
            times.add(slot.sendAt());
            tat = slot.nextTat();
        }
        return times;
    }

    @Test
    void aFirstRequestGoesAtOnce() {
        RateLimit.Slot slot = RateLimit.of(10, 1).reserve(null, T0);

        assertThat(slot.sendAt()).isEqualTo(T0);
        assertThat(slot.nextTat()).isEqualTo(T0.plusMillis(100));
    }

    @ParameterizedTest(name = "{0}/s with burst {1}: {1} go at once, then one every {2} ms")
    @CsvSource({"10, 1, 100", "10, 5, 100", "2, 3, 500", "1000, 20, 1"})
    void aBurstGoesAtOnceAndTheRestFollowTheRate(double rate, int burst, long intervalMillis) {
        List<Instant> times = sendTimes(RateLimit.of(rate, burst), burst + 3, T0);

        assertThat(times.subList(0, burst)).containsOnly(T0);
        for (int i = burst; i < times.size(); i++) {
            assertThat(times.get(i)).isEqualTo(T0.plusMillis(intervalMillis * (i - burst + 1)));
        }
    }

    @Test
    void aScheduleLeftInThePastStartsAgainNow() {
        RateLimit limit = RateLimit.of(10, 1);
        Instant later = T0.plusSeconds(60);

        RateLimit.Slot slot = limit.reserve(T0.plusMillis(100), later);

        assertThat(slot.sendAt()).isEqualTo(later);
        assertThat(slot.nextTat()).isEqualTo(later.plusMillis(100));
    }

    @Test
    void aRequestAtExactlyItsSlotGoesThenAndTakesTheNext() {
        RateLimit limit = RateLimit.of(10, 1);
        Instant slotTime = T0.plusMillis(100);

        RateLimit.Slot slot = limit.reserve(slotTime, slotTime);

        assertThat(slot.sendAt()).isEqualTo(slotTime);
        assertThat(slot.waitFrom(slotTime)).isZero();
        assertThat(slot.nextTat()).isEqualTo(slotTime.plusMillis(100));
    }

    @Test
    void aRequestOneNanosecondEarlyWaitsForItsSlot() {
        RateLimit limit = RateLimit.of(10, 1);
        Instant slotTime = T0.plusMillis(100);

        RateLimit.Slot slot = limit.reserve(slotTime, slotTime.minusNanos(1));

        assertThat(slot.waitFrom(slotTime.minusNanos(1))).isEqualTo(Duration.ofNanos(1));
    }

    @ParameterizedTest(name = "{0}/s, burst {1}: at most burst + rate * W in any window W of {2} s")
    @CsvSource({"10, 1, 1", "10, 5, 1", "3, 2, 10", "0.5, 1, 10"})
    void noWindowHoldsMoreThanTheBurstPlusTheRate(double rate, int burst, long windowSeconds) {
        List<Instant> times = sendTimes(RateLimit.of(rate, burst), 200, T0);
        Duration window = Duration.ofSeconds(windowSeconds);
        double allowed = burst + rate * windowSeconds;

        for (Instant start : times) {
            long inWindow = times.stream()
                    .filter(t -> !t.isBefore(start) && t.isBefore(start.plus(window)))
                    .count();
            assertThat((double) inWindow).isLessThanOrEqualTo(allowed);
        }
    }
}
