package dev.relaybox.workflows.outbound;

import java.time.Instant;
import java.util.UUID;

/**
 * One delivery of an outbox row to one endpoint, as it stands when the workflow (re)starts: the attempts its row
 * records and, while it is backing off, when its row says the next attempt is due (null when it is due now).
 *
 * @param url the endpoint's URL as the history may show it: scheme, host and port (plans recorded by release 1.0 hold
 *     the whole URL); attempts read the URL itself from the store
 * @param goesAtOnce the endpoint's controls had nothing to hold it for when the plan was made (no limit, order or
 *     open circuit; or nothing to send): its first attempt need not ask them. False in plans recorded before it
 *     existed.
 */
public record DeliveryTarget(
        UUID deliveryId,
        String endpointName,
        String url,
        int attemptsSoFar,
        Instant nextAttemptAt,
        boolean goesAtOnce) {}
