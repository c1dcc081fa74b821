package dev.relaybox.activities.outbound.controls;

import java.time.Duration;
import java.time.Instant;

/**
 * In-flight slots: at most {@code maxInFlight} deliveries of an endpoint hold one at a time. A slot is held past
 * its send time for {@code leaseTime}, so a killed worker cannot leak it.
 */
public record Leases(int maxInFlight, Duration leaseTime) {
    /** All slots are taken by other deliveries: this one waits for one to be freed. */
    public boolean full(int heldByOthers) {
        return heldByOthers >= maxInFlight;
    }

    /** Until when a delivery sending at {@code sendAt} holds its slot unless it gives it back. */
    public Instant heldUntil(Instant sendAt) {
        return sendAt.plus(leaseTime);
    }
}
