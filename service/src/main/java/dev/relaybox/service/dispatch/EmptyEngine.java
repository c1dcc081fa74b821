package dev.relaybox.service.dispatch;

import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Whether Temporal has lost the workflows of rows that wait for them: it holds none of them, open or closed, though
 * each was started long enough ago to show. That is a server which lost its state (a new empty dev server, a wiped
 * cluster), not one with nothing to do; workflows the dispatcher started since it came back do not hide the loss.
 */
public final class EmptyEngine {
    private final WorkflowClient client;

    public EmptyEngine(WorkflowClient client) {
        this.client = client;
    }

    /** True when the server answered and counted none of them; an unanswered count throws, and proves nothing. */
    public boolean holdsNoneOf(List<String> workflowIds) {
        String ids = workflowIds.stream()
                .map(id -> "'" + id.replace("\\", "\\\\").replace("'", "\\'") + "'")
                .collect(Collectors.joining(", "));
        return client.countWorkflows("WorkflowId IN (" + ids + ")").getCount() == 0;
    }
}
