package dev.relaybox.workflows.inbound;

import java.time.Instant;
import java.util.UUID;

/**
 * What the workflow is doing right now.
 *
 * @param status        the {@link InboxState#searchValue()}: pending, deferred, processed or dead_lettered
 * @param outcome       the last decision's outcome, or null before the first
 * @param nextRecheckAt when a deferred event decides again without a release, or null
 */
public record InboxStatus(
        UUID inboxId,
        String status,
        String outcome,
        int attempts,
        String reason,
        String waitingFor,
        Instant nextRecheckAt) {}
