package dev.relaybox.service.recovery;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A replay's corrected payload and its audit: why, the caller's token ({@code admin token 1f0c3a9e}) and the name the
 * operator gave (null when none).
 */
public record PayloadCorrection(JsonNode payload, String reason, String actor, String declaredBy) {}
