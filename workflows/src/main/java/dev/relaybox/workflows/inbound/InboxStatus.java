package dev.relaybox.workflows.inbound;

import java.util.UUID;

/**
 * What the workflow is doing right now.
 *
 * @param status        the {@link InboxState#searchValue()}: pending, deferred, processed or dead_lettered
 * @param outcome       the last decision's outcome, or null before the first
 * @param nextRecheckAt when a deferred event decides again without a release (ISO-8601), or null
 */
public record InboxStatus(
        UUID inboxId,
        String status,
        String outcome,
        int attempts,
        String reason,
        String waitingFor,
        String nextRecheckAt) {}
