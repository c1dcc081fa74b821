package dev.relaybox.workflows;

import io.temporal.common.SearchAttributeUpdate;
import io.temporal.common.SearchAttributes;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a Relaybox workflow shows in the Temporal UI: its {@link RelaySearchAttributes} and its current details, kept
 * within {@link VisibilityLimits}. A search attribute is upserted only when its value changes: each upsert is a history
 * event, and a long deferral or a retried delivery refreshes many times. Upserted either at every change, or, when
 * {@link #publishedWhenWaiting()}, collected and upserted together by {@link #publish} (one event however many
 * changed). Current details are not history; they are set on every refresh. Call from workflow code only.
 */
public final class WorkflowVisibility {
    private final boolean publishesEachChange;
    private String shownStatus;
    private long shownAttempts = -1;
    private List<String> shownEndpoints;
    private String status;
    private long attempts = -1;
    private List<String> endpoints;

    /** Upserts every change as it is made. */
    public WorkflowVisibility() {
        this(true);
    }

    private WorkflowVisibility(boolean publishesEachChange) {
        this.publishesEachChange = publishesEachChange;
    }

    /**
     * Upserts the changes only when {@link #publish} is called: where the workflow starts to wait, and at its end,
     * which is when operators search for it.
     */
    public static WorkflowVisibility publishedWhenWaiting() {
        return new WorkflowVisibility(false);
    }

    /**
     * What a workflow is about and its first status, set as it is started (its own code upserts only what changes
     * later), each cut to the server's limits: a real server rejects the start when one is over. A value that is null
     * stays unset: leaving an attribute unset beats inventing a value operators would search for.
     */
    public static SearchAttributes atStart(
            String direction, String status, String eventType, String aggregate, String peer) {
        SearchAttributes.Builder attributes = SearchAttributes.newBuilder()
                .set(RelaySearchAttributes.DIRECTION, direction)
                .set(RelaySearchAttributes.STATUS, status);
        if (eventType != null) {
            attributes.set(RelaySearchAttributes.EVENT_TYPE, VisibilityLimits.keyword(eventType));
        }
        if (aggregate != null) {
            attributes.set(RelaySearchAttributes.AGGREGATE, VisibilityLimits.keyword(aggregate));
        }
        if (peer != null) {
            attributes.set(RelaySearchAttributes.PEER, VisibilityLimits.keyword(peer));
        }
        return attributes.build();
    }

    /**
     * What the workflow is about, upserted at its start by workflows of release 1.0, which were started without it.
     * A value that is null stays unset.
     */
    public void describe(String direction, String peer, String eventType, String aggregate) {
        List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
        updates.add(RelaySearchAttributes.DIRECTION.valueSet(direction));
        if (peer != null) {
            updates.add(RelaySearchAttributes.PEER.valueSet(VisibilityLimits.keyword(peer)));
        }
        if (eventType != null) {
            updates.add(RelaySearchAttributes.EVENT_TYPE.valueSet(VisibilityLimits.keyword(eventType)));
        }
        if (aggregate != null) {
            updates.add(RelaySearchAttributes.AGGREGATE.valueSet(VisibilityLimits.keyword(aggregate)));
        }
        Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
    }

    /** The outbound endpoints, bounded by {@link VisibilityLimits#endpointNames}. */
    public void endpoints(List<String> names) {
        endpoints = VisibilityLimits.endpointNames(names);
        if (publishesEachChange && !endpoints.equals(shownEndpoints)) {
            Workflow.upsertTypedSearchAttributes(RelaySearchAttributes.ENDPOINTS.valueSet(endpoints));
            shownEndpoints = endpoints;
        }
    }

    /** {@code RelayStatus} and {@code RelayAttempts} (upserted together when either changed), and the details. */
    public void show(String status, long attempts, String details) {
        this.status = status;
        this.attempts = attempts;
        if (publishesEachChange && statusChanged()) {
            Workflow.upsertTypedSearchAttributes(
                    RelaySearchAttributes.STATUS.valueSet(status), RelaySearchAttributes.ATTEMPTS.valueSet(attempts));
            shownStatus = status;
            shownAttempts = attempts;
        }
        details(details);
    }

    /** Upserts what changed since the last upsert, in one command; nothing when nothing did. */
    public void publish() {
        List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
        if (endpoints != null && !endpoints.equals(shownEndpoints)) {
            updates.add(RelaySearchAttributes.ENDPOINTS.valueSet(endpoints));
            shownEndpoints = endpoints;
        }
        if (status != null && statusChanged()) {
            updates.add(RelaySearchAttributes.STATUS.valueSet(status));
            updates.add(RelaySearchAttributes.ATTEMPTS.valueSet(attempts));
            shownStatus = status;
            shownAttempts = attempts;
        }
        if (!updates.isEmpty()) {
            Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
        }
    }

    private boolean statusChanged() {
        return !Objects.equals(status, shownStatus) || attempts != shownAttempts;
    }

    /** The current details alone, for a step that changes no search attribute. */
    public static void details(String details) {
        Workflow.setCurrentDetails(VisibilityLimits.details(details));
    }
}
