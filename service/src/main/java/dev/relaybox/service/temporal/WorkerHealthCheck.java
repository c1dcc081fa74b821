package dev.relaybox.service.temporal;

import com.codahale.metrics.health.HealthCheck;
import java.util.function.BooleanSupplier;

/** Healthy while this process's worker polls its task queue (processes with the worker role only). */
public final class WorkerHealthCheck extends HealthCheck {
    private final BooleanSupplier running;
    private final String taskQueue;

    public WorkerHealthCheck(BooleanSupplier running, String taskQueue) {
        this.running = running;
        this.taskQueue = taskQueue;
    }

    @Override
    protected Result check() {
        return running.getAsBoolean()
                ? Result.healthy("worker polls task queue %s", taskQueue)
                : Result.unhealthy("worker for task queue %s is not running", taskQueue);
    }
}
