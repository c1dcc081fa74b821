package dev.relaybox.service.recovery;

import dev.relaybox.service.dispatch.DispatchSource;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.InboxStore;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.jdbi.v3.core.Jdbi;

/**
 * An operator's immediate retry of one row: a delivery's next attempt now, a deferred inbound event's decision now.
 * The schedule lives in the rows, so the row is made due now first, then its workflow is told. A running one gets its
 * signal. One that is gone (terminated, or lost with the engine's state) is started at once the way the reconciler
 * starts an overdue row, and its new run resumes from the row, which is now due. Either way the work happens now, not
 * after the reconciler's grace.
 */
public final class ImmediateRetry {
    /** Refused: the row was not in a state to act on, nothing changed. Otherwise how its workflow was told. */
    public enum Result {
        REFUSED,
        SIGNALLED,
        RESTARTED
    }

    private final Jdbi jdbi;
    private final WorkflowClient temporal;
    private final DispatchSource outbox;
    private final DispatchSource inbox;

    /** {@code outbox} and {@code inbox}: the sources the reconciler restarts rows through. */
    public ImmediateRetry(Jdbi jdbi, WorkflowClient temporal, DispatchSource outbox, DispatchSource inbox) {
        this.jdbi = jdbi;
        this.temporal = temporal;
        this.outbox = outbox;
        this.inbox = inbox;
    }

    /** The delivery's next attempt, now; refused unless the delivery is still to be attempted. */
    public Result retryDelivery(UUID deliveryId) {
        Optional<UUID> outboxId = jdbi.withExtension(DeliveryStore.class, store -> store.markDueNow(deliveryId));
        if (outboxId.isEmpty()) {
            return Result.REFUSED;
        }
        return tell(
                outbox,
                outboxId.get(),
                workflowId -> temporal.newWorkflowStub(OutboxDeliveryWorkflow.class, workflowId)
                        .retryNow());
    }

    /** The deferred event decides again, now; refused unless the event is deferred. */
    public Result releaseInboxEvent(UUID inboxId) {
        if (!jdbi.withExtension(InboxStore.class, store -> store.markDueNow(inboxId))) {
            return Result.REFUSED;
        }
        return tell(
                inbox,
                inboxId,
                workflowId -> temporal.newWorkflowStub(InboxEventWorkflow.class, workflowId)
                        .release());
    }

    private Result tell(DispatchSource source, UUID rowId, Consumer<String> signal) {
        DispatchSource.Row row = jdbi.withHandle(handle -> source.find(handle, rowId))
                .orElseThrow(() -> new IllegalStateException(source.name() + " row " + rowId + " vanished"));
        if (signalled(signal, row)) {
            return Result.SIGNALLED;
        }
        if (source.restart(row)) {
            // As after the reconciler's restart: the row counts as dispatched now, so no pass re-drives it in the
            // grace.
            jdbi.useHandle(handle -> source.markDispatched(handle, List.of(rowId)));
            return Result.RESTARTED;
        }
        // Another start came first (the reconciler's, the dispatcher's). Its run may have read the row before it was
        // made due, so it is told too; should it have finished meanwhile, the work is done.
        signalled(signal, row);
        return Result.SIGNALLED;
    }

    /** False when no run of the row's workflow is open to take the signal. */
    private static boolean signalled(Consumer<String> signal, DispatchSource.Row row) {
        try {
            signal.accept(row.workflowId());
            return true;
        } catch (WorkflowNotFoundException e) {
            return false;
        }
    }
}
