package dev.relaybox.workflows.outbound;

import java.util.UUID;

/** The first attempt of a delivery nothing holds: its number is one past the attempts its row records. */
public record FirstAttempt(UUID deliveryId, int attempt) {}
