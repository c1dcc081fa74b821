package dev.relaybox.workflows;

import java.time.Duration;

/**
 * Waits that double from {@code first} up to {@code longest}, on durable timers: for a workflow that must wait out a
 * fault of Relaybox's own (its database away) rather than fail, and resume soon after the fault ends. One instance
 * per wait-out; call from workflow code only.
 */
public final class Backoff {
    private final Duration longest;
    private Duration next;

    public Backoff(Duration first, Duration longest) {
        this.next = first;
        this.longest = longest;
    }

    /** One second, doubling, at most five minutes apart. */
    public static Backoff untilRelayboxRecovers() {
        return new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5));
    }

    /** How long the next {@link #sleep} waits. */
    public Duration nextWait() {
        return next;
    }

    /**
     * Sleeps {@link #nextWait} on a durable timer ({@link TimerOrSignal#sleep}, with {@code summary} in the Temporal
     * UI's timeline); the wait after it is twice as long, up to the longest.
     */
    public void sleep(String summary) {
        TimerOrSignal.sleep(next, summary);
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(longest) > 0 ? longest : doubled;
    }
}
