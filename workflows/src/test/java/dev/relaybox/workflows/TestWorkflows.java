package dev.relaybox.workflows;

import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;

/**
 * The workflow unit tests' Temporal: the in-memory test server with time skipping and Relaybox's search attributes,
 * not started, so that each test registers its own mocked activities first and then starts it.
 */
public final class TestWorkflows {
    private TestWorkflows() {}

    public static TestWorkflowExtension extension(Class<?> workflowImplementation) {
        TestWorkflowExtension.Builder builder = TestWorkflowExtension.newBuilder()
                .registerWorkflowImplementationTypes(workflowImplementation)
                // A build machine's loaded CPUs are no deadlock: without this, a workflow thread that waits over a
                // second for a CPU fails its task, which then waits out its ten-second timeout.
                .setWorkerOptions(WorkerOptions.newBuilder()
                        .setDefaultDeadlockDetectionTimeout(
                                Duration.ofSeconds(10).toMillis())
                        .build())
                .setDoNotStart(true);
        RelaySearchAttributes.ALL.forEach(key -> builder.registerSearchAttribute(key.getName(), key.getValueType()));
        return builder.build();
    }
}
