package dev.relaybox.workflows.outbound;

import java.util.UUID;

/**
 * The answer to "may this delivery attempt now?".
 *
 * @param go attempt after {@code waitMillis} (the rate limit's reserved slot); otherwise ask again after it
 *     or when the endpoint is reported ready
 * @param reason plain words for operators: "circuit open after 5 consecutive failures; next probe at ..."
 * @param ordered the endpoint delivers each aggregate's events in order: report {@code finished}
 */
public record GateDecision(boolean go, long waitMillis, String reason, UUID endpointId, boolean ordered) {}
