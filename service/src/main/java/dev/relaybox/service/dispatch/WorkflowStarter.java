package dev.relaybox.service.dispatch;

import dev.relaybox.workflows.VisibilityLimits;
import dev.relaybox.workflows.WorkflowVisibility;
import dev.relaybox.workflows.inbound.InboxState;
import dev.relaybox.workflows.outbound.DeliveryPhase;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.Priority;
import io.temporal.common.SearchAttributes;

/** Starts workflows by business key; an already running one counts as started. */
public final class WorkflowStarter {
    private static final int MAX_FAIRNESS_KEY = 64;

    private final WorkflowClient client;
    private final String taskQueue;

    public WorkflowStarter(WorkflowClient client, String taskQueue) {
        this.client = client;
        this.taskQueue = taskQueue;
    }

    private static SearchAttributes searchAttributes(DispatchSource.Row row, String direction) {
        return WorkflowVisibility.atStart(
                direction,
                direction.equals("inbound") ? InboxState.RECEIVED.searchValue() : DeliveryPhase.PENDING.label(),
                row.eventType(),
                row.aggregate(),
                row.peer());
    }

    /** Starts the workflow; one already running is left as it is. True when this call started it. */
    public boolean start(String workflowType, DispatchSource.Row row, String direction, Object... arguments) {
        try {
            stub(workflowType, row, direction).start(arguments);
            return true;
        } catch (WorkflowExecutionAlreadyStarted alreadyRunning) {
            // Started before: by another instance, or by this one before a crash.
            return false;
        }
    }

    /** Starts the workflow, or signals it when it is already running, in one atomic call. */
    public void signalWithStart(
            String workflowType, DispatchSource.Row row, String direction, Object argument, String signal) {
        stub(workflowType, row, direction).signalWithStart(signal, new Object[0], new Object[] {argument});
    }

    /** At most the 64 bytes the engine takes: a longer name (partners may have 100 characters) keeps a hash of itself. */
    static String fairnessKey(String key) {
        if (key == null || key.length() <= MAX_FAIRNESS_KEY) {
            return key == null ? "" : key;
        }
        return key.substring(0, MAX_FAIRNESS_KEY - 9) + "~" + String.format("%08x", key.hashCode());
    }

    private WorkflowStub stub(String workflowType, DispatchSource.Row row, String direction) {
        return client.newUntypedWorkflowStub(
                workflowType,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(taskQueue)
                        .setWorkflowId(row.workflowId())
                        .setStaticSummary(VisibilityLimits.summary(row.summary()))
                        .setStaticDetails(VisibilityLimits.details(row.details()))
                        .setTypedSearchAttributes(searchAttributes(row, direction))
                        // Where this process runs a worker for the queue with a free slot, the start's answer
                        // carries the first workflow task to it, saving the trip through the server's matching.
                        .setDisableEagerExecution(false)
                        // Where the engine has fairness on, each tenant's (or partner's) tasks take turns in the
                        // task queue instead of first in, first out; elsewhere the key is carried and ignored.
                        .setPriority(Priority.newBuilder()
                                .setFairnessKey(fairnessKey(row.fairnessKey()))
                                .build())
                        .build());
    }
}
