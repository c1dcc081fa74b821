package dev.relaybox.service.dispatch;

import com.codahale.metrics.health.HealthCheck;
import java.time.Duration;
import java.time.Instant;

/**
 * Healthy while the dispatch loop runs and keeps making progress; a loop whose passes keep failing (database
 * unreachable) turns unhealthy after a few poll intervals, at least a minute.
 */
public final class DispatcherHealthCheck extends HealthCheck {
    private final Dispatcher dispatcher;
    private final Duration stallAfter;

    public DispatcherHealthCheck(Dispatcher dispatcher, Duration pollInterval) {
        this.dispatcher = dispatcher;
        Duration threePolls = pollInterval.multipliedBy(3);
        this.stallAfter = threePolls.compareTo(Duration.ofMinutes(1)) > 0 ? threePolls : Duration.ofMinutes(1);
    }

    @Override
    protected Result check() {
        if (!dispatcher.isRunning()) {
            return Result.unhealthy("dispatcher is not running");
        }
        if (dispatcher.isPaused()) {
            return Result.healthy("dispatcher paused while the embedded Temporal server is recycled");
        }
        Instant last = dispatcher.lastProgressAt();
        if (last == null) {
            return Result.healthy("dispatcher started; first pass running");
        }
        if (last.isBefore(Instant.now().minus(stallAfter))) {
            return Result.unhealthy("dispatcher has made no progress since %s", last);
        }
        return Result.healthy("dispatcher last made progress at %s", last);
    }
}
