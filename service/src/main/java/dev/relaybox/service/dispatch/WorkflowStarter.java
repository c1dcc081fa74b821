package dev.relaybox.service.dispatch;

import dev.relaybox.workflows.RelaySearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;

/** Starts workflows by business key; an already running one counts as started. */
public final class WorkflowStarter {
    private static final int MAX_SUMMARY_LENGTH = 200;

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

    /** Starts the workflow; one already running is left as it is. */
    public void start(String workflowType, DispatchSource.Row row, String direction, Object argument) {
        try {
            stub(workflowType, row, direction).start(argument);
        } catch (WorkflowExecutionAlreadyStarted alreadyRunning) {
            // Started before: by another instance, or by this one before a crash.
        }
    }

    /** Starts the workflow, or signals it when it is already running, in one atomic call. */
    public void signalWithStart(String workflowType, DispatchSource.Row row, String direction, Object argument,
            String signal) {
        stub(workflowType, row, direction).signalWithStart(signal, new Object[0], new Object[] {argument});
    }

    /** Summaries are for people scanning a list; a long event type or aggregate id must not make a start fail. */
    private static String summary(String summary) {
        return summary.length() <= MAX_SUMMARY_LENGTH ? summary : summary.substring(0, MAX_SUMMARY_LENGTH - 1) + "…";
    }

    private WorkflowStub stub(String workflowType, DispatchSource.Row row, String direction) {
        return client.newUntypedWorkflowStub(workflowType, WorkflowOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setWorkflowId(row.workflowId())
                .setStaticSummary(summary(row.summary()))
                .setTypedSearchAttributes(searchAttributes(row, direction))
                .build());
    }
}
