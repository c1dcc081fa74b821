package dev.relaybox.activities.outbound;

import java.util.UUID;

/** Called by an attempt just before its request leaves; may hold it briefly so the endpoint's limits hold. */
@FunctionalInterface
public interface SendGate {
    SendGate NONE = deliveryId -> {};

    void awaitTurn(UUID deliveryId);
}
