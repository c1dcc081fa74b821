package dev.relaybox.activities.outbound;

import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import java.time.Duration;

/** A broker's answer to a publish as an attempt's result: confirmed is a 2xx; the rest say why it was not. */
final class BrokerAnswers {
    private BrokerAnswers() {}

    static WebhookSender.Sent confirmed(long started) {
        return new WebhookSender.Sent(
                new AttemptResult(Outcome.DELIVERED, 0, -1, "confirmed by the broker"), elapsedMs(started), null, null);
    }

    /** Trying again will not help: the publish dead-letters with {@code reason}. */
    static WebhookSender.Sent permanent(long started, String reason) {
        return new WebhookSender.Sent(
                new AttemptResult(Outcome.PERMANENT, 0, -1, reason), elapsedMs(started), null, reason);
    }

    /** A failed attempt the schedule tries again. */
    static WebhookSender.Sent retryable(long started, String reason) {
        return new WebhookSender.Sent(
                new AttemptResult(Outcome.RETRYABLE, 0, -1, reason), elapsedMs(started), null, reason);
    }

    private static int elapsedMs(long started) {
        return (int) Duration.ofNanos(System.nanoTime() - started).toMillis();
    }
}
