package dev.relaybox.workflows;

import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a Relaybox workflow shows in the Temporal UI: its {@link RelaySearchAttributes} and its current details, kept
 * within {@link VisibilityLimits}. A search attribute is upserted only when its value changes: each upsert is a history
 * event, and a long deferral or a retried delivery refreshes many times. Current details are not history; they are
 * set on every refresh. Call from workflow code only.
 */
public final class WorkflowVisibility {
    private String shownStatus;
    private long shownAttempts = -1;
    private List<String> shownEndpoints;

    /**
     * What the workflow is about, set once at its start. A value that is null stays unset: leaving an attribute unset
     * beats inventing a value operators would search for.
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
        List<String> endpoints = VisibilityLimits.endpointNames(names);
        if (!endpoints.equals(shownEndpoints)) {
            Workflow.upsertTypedSearchAttributes(RelaySearchAttributes.ENDPOINTS.valueSet(endpoints));
            shownEndpoints = endpoints;
        }
    }

    /** {@code RelayStatus} and {@code RelayAttempts} (upserted together when either changed), and the details. */
    public void show(String status, long attempts, String details) {
        if (!Objects.equals(status, shownStatus) || attempts != shownAttempts) {
            Workflow.upsertTypedSearchAttributes(
                    RelaySearchAttributes.STATUS.valueSet(status), RelaySearchAttributes.ATTEMPTS.valueSet(attempts));
            shownStatus = status;
            shownAttempts = attempts;
        }
        details(details);
    }

    /** The current details alone, for a step that changes no search attribute. */
    public static void details(String details) {
        Workflow.setCurrentDetails(VisibilityLimits.details(details));
    }
}
