package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/** How rows become workflows: the dispatcher's batches and the reconciler's passes. */
public final class DispatcherFactory {
    @Min(1)
    @Max(1000)
    @JsonProperty
    private int batchSize = 100;

    /**
     * Parallel workflow starts within a batch: each start carries its first workflow task back to this process's
     * worker (eager start), so about as many as the worker has workflow task slots (docs/performance.md, "Current
     * results").
     */
    @Min(1)
    @Max(64)
    @JsonProperty
    private int startConcurrency = 8;

    /** The fallback when no NOTIFY arrives (e.g. a trigger was dropped). */
    @NotNull
    @JsonProperty
    private Duration pollInterval = Duration.seconds(2);

    /**
     * How long one batch of starts may take before the rows not yet started go back to undispatched: Temporal being
     * unreachable must not keep a dispatch pass (or a row) waiting on the client's minute-long retries.
     */
    @NotNull
    @JsonProperty
    private Duration startTimeout = Duration.seconds(10);

    @NotNull
    @JsonProperty
    private Duration reconcileInterval = Duration.minutes(1);

    /** A dispatched, unfinished row is checked for a running workflow no more often than this. */
    @NotNull
    @JsonProperty
    private Duration reconcileGrace = Duration.minutes(5);

    public int getBatchSize() {
        return batchSize;
    }

    public int getStartConcurrency() {
        return startConcurrency;
    }

    public java.time.Duration getPollInterval() {
        return pollInterval.toJavaDuration();
    }

    public java.time.Duration getStartTimeout() {
        return startTimeout.toJavaDuration();
    }

    public java.time.Duration getReconcileInterval() {
        return reconcileInterval.toJavaDuration();
    }

    public java.time.Duration getReconcileGrace() {
        return reconcileGrace.toJavaDuration();
    }
}
