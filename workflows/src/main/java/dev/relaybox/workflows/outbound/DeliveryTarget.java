package dev.relaybox.workflows.outbound;

import java.util.UUID;

/** One delivery of an outbox row to one endpoint, as it stands when the workflow (re)starts. */
public record DeliveryTarget(UUID deliveryId, String endpointName, String url, int attemptsSoFar) {}
