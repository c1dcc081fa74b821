package dev.relaybox.activities;

import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.common.SearchAttributeKey;
import java.util.Optional;

/** What an operator sees of a workflow in the Temporal UI: its search attributes, summary and current details. */
public final class Visibility {
    private Visibility() {}

    public static <T> T attribute(WorkflowClient client, String workflowId, SearchAttributeKey<T> key) {
        return describe(client, workflowId).getTypedSearchAttributes().get(key);
    }

    public static WorkflowExecutionDescription describe(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId).describe();
    }

    /** As above, for one run of the workflow rather than its latest. */
    public static <T> T attribute(WorkflowClient client, WorkflowExecution run, SearchAttributeKey<T> key) {
        return describe(client, run).getTypedSearchAttributes().get(key);
    }

    public static WorkflowExecutionDescription describe(WorkflowClient client, WorkflowExecution run) {
        return client.newUntypedWorkflowStub(run.getWorkflowId(), Optional.of(run.getRunId()), Optional.empty())
                .describe();
    }

    /** The details the UI shows under "Current details", read the way the UI reads them. */
    public static String currentDetails(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId)
                .query("__temporal_workflow_metadata", WorkflowMetadata.class)
                .getCurrentDetails();
    }
}
