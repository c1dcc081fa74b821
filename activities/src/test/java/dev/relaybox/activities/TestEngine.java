package dev.relaybox.activities;

import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.UUID;

/**
 * Temporal's in-process test server with Relaybox's search attributes and its workers wired by
 * {@link RelayboxWorkers}, started.
 */
public final class TestEngine {
    /**
     * Temporal's deadlock detector fails a workflow task whose thread holds on for over a second; on a shared
     * two-core build machine a workflow thread can wait that long for a CPU, and each such false alarm costs the
     * task's ten-second timeout. A workflow that really blocks still fails, after ten seconds.
     */
    public static final WorkerOptions WORKER_OPTIONS = WorkerOptions.newBuilder()
            .setDefaultDeadlockDetectionTimeout(Duration.ofSeconds(10).toMillis())
            .build();

    private TestEngine() {}

    public static TestWorkflowEnvironment start(String queue, RelayboxWorkers workers) {
        return start(queue, workers, TestEnvironmentOptions.getDefaultInstance());
    }

    public static TestWorkflowEnvironment start(String queue, RelayboxWorkers workers, TestEnvironmentOptions options) {
        TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options);
        RelaySearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
        workers.registerOn(
                env.newWorker(queue, WORKER_OPTIONS),
                env.newWorker(OutboxDeliveryWorkflow.httpTaskQueue(queue), WORKER_OPTIONS),
                env.newWorker(
                        OutboxDeliveryWorkflow.ownHttpTaskQueue(
                                queue, UUID.randomUUID().toString()),
                        WORKER_OPTIONS));
        env.start();
        return env;
    }
}
