package dev.relaybox.service.temporal;

import com.codahale.metrics.health.HealthCheck;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.TimeUnit;

/** Healthy when the Temporal frontend answers within two seconds. */
public final class TemporalHealthCheck extends HealthCheck {
    private final WorkflowServiceStubs stubs;
    private final String target;

    public TemporalHealthCheck(WorkflowServiceStubs stubs, String target) {
        this.stubs = stubs;
        this.target = target;
    }

    @Override
    protected Result check() {
        stubs.blockingStub()
                .withDeadlineAfter(2, TimeUnit.SECONDS)
                .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        return Result.healthy("Temporal frontend at %s answers", target);
    }
}
