package dev.relaybox.activities;

import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.common.SearchAttributeKey;

/** What an operator sees of a workflow in the Temporal UI: its search attributes, summary and current details. */
public final class Visibility {
    private Visibility() {}

    public static <T> T attribute(WorkflowClient client, String workflowId, SearchAttributeKey<T> key) {
        return describe(client, workflowId).getTypedSearchAttributes().get(key);
    }

    public static WorkflowExecutionDescription describe(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId).describe();
    }

    /** The details the UI shows under "Current details", read the way the UI reads them. */
    public static String currentDetails(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId)
                .query("__temporal_workflow_metadata", WorkflowMetadata.class)
                .getCurrentDetails();
    }
}
