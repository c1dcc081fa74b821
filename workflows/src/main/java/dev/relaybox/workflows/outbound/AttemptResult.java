package dev.relaybox.workflows.outbound;

/**
 * How one HTTP attempt went, already recorded in {@code delivery_attempts}.
 *
 * @param statusCode the receiver's status, or 0 when no response came (timeout, refused connection)
 * @param retryAfterSeconds the receiver's {@code Retry-After} in seconds, or -1 when absent
 * @param summary plain words for operators: "503 Service Unavailable", "connect timed out"
 */
public record AttemptResult(Outcome outcome, int statusCode, long retryAfterSeconds, String summary) {
    public enum Outcome {
        /** 2xx: delivered; the delivery row is already DELIVERED. */
        DELIVERED,
        /** 408, 425, 429, 5xx, timeouts, connection errors: worth trying again. */
        RETRYABLE,
        /** 410 Gone: the endpoint has been disabled; dead-letter. */
        GONE,
        /** Any other 4xx, 3xx, or a URL that may not be called: trying again will not help. */
        PERMANENT,
        /** The endpoint is disabled: the delivery is PAUSED, and resumes when the endpoint is enabled again. */
        PAUSED
    }

    public boolean hasRetryAfter() {
        return retryAfterSeconds >= 0;
    }
}
