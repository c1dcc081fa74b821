package dev.relaybox.service.dispatch;

import dev.relaybox.store.DeadLetterSource;
import dev.relaybox.store.InboxDispatchStore;
import dev.relaybox.store.InboxSettings;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxPlan;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** Inbox rows: each becomes an {@code inbox-<partner>-<event id>} workflow (see {@link InboxEventWorkflow#workflowIdOf}). */
public final class InboxDispatchSource implements DispatchSource {
    private final WorkflowStarter starter;
    private final InboxSettings planning;

    /**
     * With {@code planning} (where this process runs the worker too, so that the start hands the workflow's first
     * task straight back), each new row is planned from what its claim read: the workflow starts with its plan and
     * goes straight to deciding.
     */
    public InboxDispatchSource(WorkflowStarter starter, InboxSettings planning) {
        this.starter = starter;
        this.planning = planning;
    }

    /** For finding and starting rows whose workflows plan for themselves. */
    public InboxDispatchSource(WorkflowStarter starter) {
        this(starter, null);
    }

    @Override
    public String name() {
        return "inbox";
    }

    @Override
    public List<Row> claimUndispatched(Handle handle, int limit) {
        return handle.attach(InboxDispatchStore.class).claimUndispatched(limit).stream()
                .map(event -> row(event, planning))
                .toList();
    }

    @Override
    public void markDispatched(Handle handle, List<UUID> ids) {
        handle.attach(InboxDispatchStore.class).markDispatched(ids);
    }

    @Override
    public void markUndispatched(Handle handle, List<UUID> ids) {
        handle.attach(InboxDispatchStore.class).markUndispatched(ids);
    }

    @Override
    public boolean quarantine(Handle handle, UUID id, String reason) {
        return handle.attach(InboxDispatchStore.class).quarantineUndispatchable(id, reason);
    }

    @Override
    public DeadLetterSource deadLetterSource() {
        return DeadLetterSource.INBOX;
    }

    @Override
    public List<Row> claimStranded(Handle handle, Instant before, int limit) {
        return handle.attach(InboxDispatchStore.class).claimStranded(before, limit).stream()
                .map(InboxDispatchSource::row)
                .toList();
    }

    @Override
    public Optional<Row> find(Handle handle, UUID id) {
        return handle.attach(InboxDispatchStore.class).dispatchable(id).map(InboxDispatchSource::row);
    }

    @Override
    public List<Row> claimUnfinished(Handle handle, Instant before, int limit) {
        return handle
                .attach(InboxDispatchStore.class)
                .claimStranded(before, LATER_THAN_ANY_RECORDED_TIME, limit)
                .stream()
                .map(InboxDispatchSource::row)
                .toList();
    }

    /**
     * A replayed row's workflow may still be closing the run that quarantined it: told to decide again (the release
     * signal, with the start in one call), that run's end is refused and it decides the reopened row, or, closed, a
     * new run starts. A plain start would be answered "already started" and leave the row to the reconciler.
     */
    @Override
    public void start(Row row) {
        if (row.mayBeRunning()) {
            starter.signalWithStart(InboxEventWorkflow.TYPE, row, "inbound", row.id(), "release");
        } else {
            starter.start(InboxEventWorkflow.TYPE, row, "inbound", row.id(), row.plan());
        }
    }

    @Override
    public boolean restart(Row row) {
        return starter.start(InboxEventWorkflow.TYPE, row, "inbound", row.id());
    }

    private static Row row(InboxDispatchStore.Dispatchable event) {
        return row(event, null);
    }

    /**
     * With {@code planning}, the row as the start of its first workflow needs it, plan included; a replayed row's
     * workflow, which may still be running, plans for itself.
     */
    private static Row row(InboxDispatchStore.Dispatchable event, InboxSettings planning) {
        String aggregate = event.aggregate() == null ? null : event.aggregate().toString();
        String eventType = event.eventType();
        InboxPlan plan = planning == null || event.replayed()
                ? null
                : planning.plan(event.partner(), eventType, aggregate, event.deferredSince());
        return new Row(
                event.id(),
                event.workflowId(),
                eventType,
                aggregate,
                event.partner(),
                event.partner(),
                "apply " + (eventType == null ? "an event without a type" : eventType) + " from " + event.partner()
                        + (aggregate == null ? "" : " to " + aggregate),
                "inbox event " + event.id() + " from " + event.partner() + ", event id " + event.partnerEventId() + "\n"
                        + Row.traceLine(event.traceId()) + Row.storyLine(event.id()),
                null,
                event.replayed(),
                plan);
    }
}
