package dev.relaybox.activities.outbound;

import io.temporal.activity.ActivityExecutionContext;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Heartbeats for an activity while it waits on something slow (a receiver answering, a rate limit's turn), a third of
 * its heartbeat timeout apart: Temporal then knows within that timeout that a killed worker's activity is gone. An
 * activity scheduled without a heartbeat timeout does not heartbeat.
 */
final class Heartbeat implements AutoCloseable {
    private static final ScheduledExecutorService BEATS = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "relaybox-activity-heartbeat");
        thread.setDaemon(true);
        return thread;
    });

    private final ScheduledFuture<?> beats;

    private Heartbeat(ScheduledFuture<?> beats) {
        this.beats = beats;
    }

    static Heartbeat whileRunning(ActivityExecutionContext activity) {
        Duration timeout = activity.getInfo().getHeartbeatTimeout();
        if (timeout.isZero()) {
            return new Heartbeat(null);
        }
        long every = Math.max(1, timeout.toMillis() / 3);
        // Once the server says the activity has ended (timed out, cancelled), heartbeat throws, and a scheduled task
        // that throws is not run again; the request itself is still ended by its own deadline.
        return new Heartbeat(
                BEATS.scheduleAtFixedRate(() -> activity.heartbeat(null), every, every, TimeUnit.MILLISECONDS));
    }

    @Override
    public void close() {
        if (beats != null) {
            beats.cancel(false);
        }
    }
}
