package dev.relaybox.store;

/**
 * How deliveries to one endpoint are paced and shaped. Nulls mean "no limit".
 *
 * @param rateLimit requests per second
 * @param burst requests that may go at once after a quiet spell (defaults to the rate, at least 1)
 * @param maxInFlight concurrent requests
 * @param ordered events of one aggregate are delivered in outbox order
 * @param payloadFormat {@code envelope} (Standard Webhooks {"type","timestamp","data"}) or {@code raw}
 */
public record EndpointControls(
        Double rateLimit, Integer burst, Integer maxInFlight, boolean ordered, String payloadFormat) {
    public static final String ENVELOPE = "envelope";
    public static final String RAW = "raw";

    public static EndpointControls defaults() {
        return new EndpointControls(null, null, null, false, ENVELOPE);
    }

    public int effectiveBurst() {
        return burst != null ? burst : rateLimit == null ? 1 : (int) Math.max(1, Math.ceil(rateLimit));
    }
}
