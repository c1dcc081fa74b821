package dev.relaybox.producer;

import java.util.UUID;

/** The outcome of an idempotent enqueue: the row's id, whether this call created it, and whether the key was reused for another request. */
public record IdempotentEnqueue(UUID id, boolean created, boolean conflict) {}
