package dev.relaybox.workflows.outbound;

import java.time.Instant;
import java.util.UUID;

/**
 * One delivery of an outbox row to one endpoint, as it stands when the workflow (re)starts: the attempts its row
 * records and, while it is backing off, when its row says the next attempt is due (null when it is due now).
 */
public record DeliveryTarget(
        UUID deliveryId, String endpointName, String url, int attemptsSoFar, Instant nextAttemptAt) {}
