package dev.relaybox.service.temporal;

import com.codahale.metrics.health.HealthCheck;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Healthy when the Temporal frontend answers within two seconds, or while the embedded one is being recycled. */
public final class TemporalHealthCheck extends HealthCheck {
    private final WorkflowServiceStubs stubs;
    private final String target;
    private final BooleanSupplier recycling;

    public TemporalHealthCheck(WorkflowServiceStubs stubs, String target) {
        this(stubs, target, () -> false);
    }

    /** {@code recycling}: the embedded server is being replaced on purpose, for a few seconds at most. */
    public TemporalHealthCheck(WorkflowServiceStubs stubs, String target, BooleanSupplier recycling) {
        this.stubs = stubs;
        this.target = target;
        this.recycling = recycling;
    }

    @Override
    protected Result check() {
        if (recycling.getAsBoolean()) {
            return Result.healthy("embedded Temporal server at %s is being recycled", target);
        }
        try {
            stubs.blockingStub()
                    .withDeadlineAfter(2, TimeUnit.SECONDS)
                    .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        } catch (RuntimeException e) {
            if (recycling.getAsBoolean()) {
                return Result.healthy("embedded Temporal server at %s is being recycled", target);
            }
            throw e;
        }
        return Result.healthy("Temporal frontend at %s answers", target);
    }
}
