package dev.relaybox.workflows.inbound;

import java.time.Duration;
import java.time.Instant;

/**
 * What the workflow knows before deciding: the row's identity for the Temporal UI, and the deferral settings in
 * force when the plan was made.
 *
 * @param partner        the partner that sent the event, as named in the configuration
 * @param eventType      the partner's event type, or null when the payload had none
 * @param aggregate      {@code type:id}, or null when either is missing (such an event is rejected)
 * @param recheckInterval how long a deferred event waits for a release before deciding again anyway
 * @param maxDeferral    how long an event may stay deferred before it is dead-lettered
 * @param deferredSince  when the row's current deferral began, as an earlier run recorded it; null when none did
 */
public record InboxPlan(
        String partner,
        String eventType,
        String aggregate,
        Duration recheckInterval,
        Duration maxDeferral,
        Instant deferredSince) {}
