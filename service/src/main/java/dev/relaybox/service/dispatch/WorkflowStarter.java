package dev.relaybox.service.dispatch;

import dev.relaybox.workflows.RelaySearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;

/** Starts workflows by business key; an already running one counts as started. */
public final class WorkflowStarter {
    private final WorkflowClient client;
    private final String taskQueue;

    public WorkflowStarter(WorkflowClient client, String taskQueue) {
        this.client = client;
        this.taskQueue = taskQueue;
    }

    private static SearchAttributes searchAttributes(DispatchSource.Row row, String direction) {
        SearchAttributes.Builder attributes = SearchAttributes.newBuilder()
                .set(RelaySearchAttributes.DIRECTION, direction)
                .set(RelaySearchAttributes.STATUS, "pending");
        if (row.eventType() != null) {
            attributes.set(RelaySearchAttributes.EVENT_TYPE, row.eventType());
        }
        if (row.aggregate() != null) {
            attributes.set(RelaySearchAttributes.AGGREGATE, row.aggregate());
        }
        if (row.peer() != null) {
            attributes.set(RelaySearchAttributes.PEER, row.peer());
        }
        return attributes.build();
    }

    /** Returns true when this call started it, false when it was already running. */
    public boolean start(String workflowType, DispatchSource.Row row, String direction, Object argument) {
        WorkflowStub stub = client.newUntypedWorkflowStub(workflowType, WorkflowOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setWorkflowId(row.workflowId())
                .setStaticSummary(row.summary())
                .setTypedSearchAttributes(searchAttributes(row, direction))
                .build());
        try {
            stub.start(argument);
            return true;
        } catch (WorkflowExecutionAlreadyStarted alreadyRunning) {
            return false;
        }
    }
}
