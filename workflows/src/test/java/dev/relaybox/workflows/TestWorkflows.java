package dev.relaybox.workflows;

import io.temporal.testing.TestWorkflowExtension;

/**
 * The workflow unit tests' Temporal: the in-memory test server with time skipping and Relaybox's search attributes,
 * not started, so that each test registers its own mocked activities first and then starts it.
 */
public final class TestWorkflows {
    private TestWorkflows() {}

    public static TestWorkflowExtension extension(Class<?> workflowImplementation) {
        TestWorkflowExtension.Builder builder = TestWorkflowExtension.newBuilder()
                .registerWorkflowImplementationTypes(workflowImplementation)
                .setDoNotStart(true);
        RelaySearchAttributes.ALL.forEach(key -> builder.registerSearchAttribute(key.getName(), key.getValueType()));
        return builder.build();
    }
}
