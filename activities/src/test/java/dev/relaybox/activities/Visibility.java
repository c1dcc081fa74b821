package dev.relaybox.activities;

import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.SearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.common.SearchAttributeKey;
import io.temporal.internal.common.SearchAttributesUtil;
import java.util.HashMap;
import java.util.Map;

/** What an operator sees of a workflow in the Temporal UI: its search attributes, summary and current details. */
public final class Visibility {
    private Visibility() {}

    public static <T> T attribute(WorkflowClient client, String workflowId, SearchAttributeKey<T> key) {
        return describe(client, workflowId).getTypedSearchAttributes().get(key);
    }

    public static WorkflowExecutionDescription describe(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId).describe();
    }

    /** As above, for one run of the workflow rather than its latest: as its own history set it. */
    public static <T> T attribute(WorkflowClient client, WorkflowExecution run, SearchAttributeKey<T> key) {
        return SearchAttributesUtil.decodeTyped(SearchAttributes.newBuilder()
                        .putAllIndexedFields(recordedAttributes(client, run))
                        .build())
                .get(key);
    }

    /**
     * The search attributes one run ended with, as set at its start and upserted since, read from its history: a
     * description by run id may show the latest run's instead (the SDK's test server does).
     */
    public static Map<String, Payload> recordedAttributes(WorkflowClient client, WorkflowExecution run) {
        Map<String, Payload> attributes = new HashMap<>();
        for (HistoryEvent event :
                client.fetchHistory(run.getWorkflowId(), run.getRunId()).getEvents()) {
            if (event.hasWorkflowExecutionStartedEventAttributes()) {
                attributes.putAll(event.getWorkflowExecutionStartedEventAttributes()
                        .getSearchAttributes()
                        .getIndexedFieldsMap());
            } else if (event.hasUpsertWorkflowSearchAttributesEventAttributes()) {
                attributes.putAll(event.getUpsertWorkflowSearchAttributesEventAttributes()
                        .getSearchAttributes()
                        .getIndexedFieldsMap());
            }
        }
        return attributes;
    }

    /** The details the UI shows under "Current details", read the way the UI reads them. */
    public static String currentDetails(WorkflowClient client, String workflowId) {
        return client.newUntypedWorkflowStub(workflowId)
                .query("__temporal_workflow_metadata", WorkflowMetadata.class)
                .getCurrentDetails();
    }
}
