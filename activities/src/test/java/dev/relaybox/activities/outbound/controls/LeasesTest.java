package dev.relaybox.activities.outbound.controls;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeasesTest {
    @ParameterizedTest(name = "{0} slots, {1} held by others: full {2}")
    @CsvSource({"1, 0, false", "1, 1, true", "3, 2, false", "3, 3, true", "3, 4, true"})
    void theSlotsAreFullOnceOthersHoldAllOfThem(int maxInFlight, int heldByOthers, boolean full) {
        assertThat(new Leases(maxInFlight, Duration.ofMinutes(3)).full(heldByOthers))
                .isEqualTo(full);
    }

    @Test
    void aSlotIsHeldPastItsSendTimeForTheLeaseTime() {
        Instant sendAt = Instant.parse("2026-01-01T00:00:05Z");

        assertThat(new Leases(2, Duration.ofMinutes(3)).heldUntil(sendAt)).isEqualTo(sendAt.plusSeconds(180));
    }
}
