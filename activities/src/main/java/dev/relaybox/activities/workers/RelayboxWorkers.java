package dev.relaybox.activities.workers;

import dev.relaybox.activities.outbound.DeliveryActivitiesImpl;
import dev.relaybox.workflows.inbound.InboxActivities;
import dev.relaybox.workflows.inbound.InboxEventWorkflowImpl;
import dev.relaybox.workflows.outbound.DeliveryActivities;
import dev.relaybox.workflows.outbound.EndpointControlActivities;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.temporal.worker.Worker;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Relaybox's workflows and the activities they call, on the task queues a worker serves: the workflow queue; its HTTP
 * queue where attempts run in their own slots (so slow receivers cannot take the slots the database calls need); and
 * the worker's own HTTP queue, where it waits for the first attempts it handed over. The application and every test
 * wire their workers here. A side left out (no inbox activities in an
 * outbound-only test) is simply not registered.
 */
public record RelayboxWorkers(DeliveryActivities delivery, EndpointControlActivities controls, InboxActivities inbox) {

    public static RelayboxWorkers outbound(DeliveryActivities delivery, EndpointControlActivities controls) {
        return new RelayboxWorkers(delivery, controls, null);
    }

    public static RelayboxWorkers inbound(InboxActivities inbox) {
        return new RelayboxWorkers(null, null, inbox);
    }

    /** {@code ownHttpWorker}: on a queue unique to this process ({@link OutboxDeliveryWorkflow#ownHttpTaskQueue}). */
    public void registerOn(Worker worker, Worker httpWorker, Worker ownHttpWorker) {
        worker.registerWorkflowImplementationTypes(OutboxDeliveryWorkflowImpl.class, InboxEventWorkflowImpl.class);
        worker.registerActivitiesImplementations(
                Stream.of(delivery, controls, inbox).filter(Objects::nonNull).toArray());
        if (delivery != null) {
            httpWorker.registerActivitiesImplementations(delivery);
            ownHttpWorker.registerActivitiesImplementations(delivery);
            // Not when wrapped (tests that fault its calls): then a first attempt holds its workflow task throughout.
            if (delivery instanceof DeliveryActivitiesImpl impl) {
                impl.takeHandedOverAttemptsOn(ownHttpWorker.getTaskQueue());
            }
        }
    }
}
