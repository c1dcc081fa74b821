package dev.relaybox.service.admin;

import dev.relaybox.store.StoryQueries;
import dev.relaybox.workflows.outbound.DeliveryStatus;
import dev.relaybox.workflows.outbound.OutboxStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * What the story says of each row, in words an operator reads at a glance: what happened to it and what, if
 * anything, it is waiting for now. The raw columns stay beside it in the story; these words never contradict them
 * (a dead-lettered delivery is never "finished", a replayed one never "0 attempts" above the attempts it made).
 */
final class StoryWords {
    private StoryWords() {}

    /** An outbound event, from its deliveries' states; {@code status} and {@code processedAt} are the row's. */
    static String outbound(String status, Instant processedAt, List<String> deliveryStatuses) {
        if (deliveryStatuses.isEmpty()) {
            return switch (OutboxStatus.valueOf(status)) {
                case PROCESSED -> "finished " + time(processedAt) + ": no endpoint subscribes to it";
                case QUARANTINED -> "never sent: quarantined, see its dead letter";
                case DISPATCHED -> "dispatched; its deliveries are being planned";
                case PENDING -> "waiting to be dispatched";
            };
        }
        int total = deliveryStatuses.size();
        long delivered = count(deliveryStatuses, DeliveryStatus.DELIVERED);
        long dead = count(deliveryStatuses, DeliveryStatus.DEAD_LETTERED);
        long cancelled = count(deliveryStatuses, DeliveryStatus.CANCELLED);
        long paused = count(deliveryStatuses, DeliveryStatus.PAUSED);
        long underway = total - delivered - dead - cancelled - paused;
        String tally = delivered + " of " + total + " delivered" + (dead > 0 ? ", " + dead + " dead-lettered" : "")
                + (cancelled > 0 ? ", " + cancelled + " cancelled" : "")
                + (paused > 0 ? ", " + paused + " paused" : "");
        if (underway > 0 || paused > 0) {
            return "delivering: " + tally;
        }
        if (delivered == total) {
            return "delivered to " + (total == 1 ? "its endpoint" : "all " + total + " endpoints")
                    + (processedAt == null ? "" : ", " + time(processedAt));
        }
        return "done, not all delivered: " + tally;
    }

    /** A delivery; {@code logged} is how many attempts its log lists, which a replay does not reset. */
    static String delivery(StoryQueries.DeliveryRow d, int logged, Instant now) {
        int made = Math.max(d.attempts(), logged);
        String attempts = made + (made == 1 ? " attempt" : " attempts");
        String last = d.lastError() == null ? "" : "; last: " + d.lastError();
        return switch (DeliveryStatus.valueOf(d.status())) {
            case DELIVERED -> "delivered " + time(d.completedAt()) + " after " + attempts;
            case DEAD_LETTERED -> "dead-lettered after " + attempts + last;
            case CANCELLED -> "cancelled after " + attempts;
            case PAUSED -> "paused while its endpoint is disabled; " + attempts + " so far";
            case PENDING, RETRYING -> waiting(d, now) + "; " + attempts + " so far" + last;
        };
    }

    private static String waiting(StoryQueries.DeliveryRow d, Instant now) {
        if (d.waitingFor() != null) {
            return switch (d.waitingFor()) {
                case "CIRCUIT" -> "waiting for its endpoint's circuit to close (a probe decides)";
                case "RATE" -> "waiting for its turn under the endpoint's rate limit";
                case "IN_FLIGHT" -> "waiting for a free slot under the in-flight limit of the endpoint or its tenant";
                case "ORDER" -> "waiting for an earlier delivery of its aggregate";
                default -> "waiting (" + d.waitingFor().toLowerCase() + ")";
            };
        }
        if (d.nextAttemptAt() == null) {
            return "next attempt pending";
        }
        return d.nextAttemptAt().isAfter(now)
                ? "next attempt " + time(d.nextAttemptAt())
                : "next attempt due since " + time(d.nextAttemptAt());
    }

    /** An inbound event: its decision, and what it waited for when it had to. */
    static String inbound(StoryQueries.InboxRow e) {
        String attempts = e.attempts() + (e.attempts() == 1 ? " decision" : " decisions");
        String waited = e.deferReason() == null ? "" : " after waiting (" + e.deferReason() + ")";
        return switch (e.status()) {
            case "PROCESSED" ->
                ("STALE".equals(e.outcome()) ? "ignored as stale " : "applied ")
                        + time(e.processedAt())
                        + ("STALE".equals(e.outcome()) ? "" : waited)
                        + "; " + attempts;
            case "DEFERRED" -> "deferred: " + e.deferReason() + "; " + attempts + " so far";
            case "QUARANTINED" -> "quarantined" + (e.lastError() == null ? "" : ": " + e.lastError()) + "; " + attempts;
            default -> "received, not decided yet";
        };
    }

    private static long count(List<String> statuses, DeliveryStatus status) {
        return statuses.stream().filter(status.name()::equals).count();
    }

    private static String time(Instant instant) {
        return instant == null ? "" : instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
