package dev.relaybox.workflows.outbound;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.UUID;

/**
 * Delivers one outbox row to every subscribed endpoint, each independently, retrying on durable timers
 * and dead-lettering when the schedule is spent. Workflow id: {@code outbox-<uuid>}. Safe to start again
 * for the same row: only unfinished deliveries are attempted.
 */
@WorkflowInterface
public interface OutboxDeliveryWorkflow {
    String TYPE = "OutboxDelivery";

    /**
     * {@code plan}: the row's first plan, made by the starter in the transaction that claimed it; null (and in every
     * history recorded before the parameter existed) when the workflow is to plan itself.
     */
    @WorkflowMethod(name = TYPE)
    void deliver(UUID outboxId, DeliveryPlan plan);

    /** Skips the current wait of every delivery that is backing off. */
    @SignalMethod
    void retryNow();

    /**
     * Deliveries may have been added or replayed: plan again before finishing. The dispatcher sends it with
     * every start, so a row replayed while its workflow is closing is never left behind.
     */
    @SignalMethod
    void replan();

    /**
     * An endpoint this workflow may be waiting on has room now: its circuit closed, a slot was freed, or the
     * previous event of the aggregate finished. Waiting deliveries to it ask again at once.
     */
    @SignalMethod
    void endpointReady(UUID endpointId);

    @QueryMethod
    OutboxProgress status();

    static String workflowId(UUID outboxId) {
        return "outbox-" + outboxId;
    }

    /**
     * Where the HTTP attempts of workflows on {@code taskQueue} run: a worker polling it needs only
     * {@link DeliveryActivities}, and its slots are for HTTP alone.
     */
    static String httpTaskQueue(String taskQueue) {
        return taskQueue + "-http";
    }

    /**
     * One worker process's own HTTP task queue, {@code workerId} unique to the process: where a first attempt it
     * handed over is waited for (a process that is gone leaves its queue without a poller).
     */
    static String ownHttpTaskQueue(String taskQueue, String workerId) {
        return httpTaskQueue(taskQueue) + "-" + workerId;
    }
}
