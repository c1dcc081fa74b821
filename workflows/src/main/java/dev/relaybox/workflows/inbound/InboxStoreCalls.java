package dev.relaybox.workflows.inbound;

import dev.relaybox.workflows.VisibilityLimits;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;

/**
 * The inbox workflow's calls to {@link InboxActivities}, which wait out a database that cannot be reached, however
 * long it stays away: each call retries with capped backoff, and when its retries are spent on the outage the
 * workflow says so in its current details, counts {@value #DATABASE_WAITS_METRIC} and calls again. Other failures,
 * through every retry, are thrown.
 */
final class InboxStoreCalls {
    static final int STORE_ATTEMPTS = 10;
    static final String DATABASE_WAITS_METRIC = "relaybox_database_waits";

    // Local activities: the work is database-only, so it runs in the workflow task instead of taking a round trip
    // through the server each; backoffs past a few seconds become durable timers instead of holding the task open.
    // Bounded, so that a failure other than an outage ends in a dead letter, and an outage shows up in the workflow's
    // details between rounds rather than only as a pending activity's attempt count.
    private static final LocalActivityOptions STORE = LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setMaximumInterval(Duration.ofMinutes(1))
                    .setMaximumAttempts(STORE_ATTEMPTS)
                    .build())
            .setLocalRetryThreshold(Duration.ofSeconds(5))
            .build();

    private final Consumer<String> showWaiting;

    /** {@code showWaiting} shows the current details of a wait for the database. */
    InboxStoreCalls(Consumer<String> showWaiting) {
        this.showWaiting = showWaiting;
    }

    /**
     * Calls the store, and calls again for as long as the database cannot be reached (the call's retries spent on
     * the outage, or timed out against a server that stopped answering).
     *
     * @param what for the details shown while waiting: "decide"
     * @param summary for the Temporal UI's timeline: "decide order.paid for order:42"
     */
    <T> T call(String what, String summary, Functions.Func1<InboxActivities, T> call) {
        InboxActivities store = Workflow.newLocalActivityStub(
                InboxActivities.class,
                LocalActivityOptions.newBuilder(STORE)
                        .setSummary(VisibilityLimits.summary(summary))
                        .build());
        Instant waitingSince = null;
        while (true) {
            try {
                return call.apply(store);
            } catch (ActivityFailure e) {
                if (!databaseUnavailable(e)) {
                    throw e;
                }
                waitingSince = waitingSince == null ? Instant.ofEpochMilli(Workflow.currentTimeMillis()) : waitingSince;
                Workflow.getMetricsScope().counter(DATABASE_WAITS_METRIC).inc(1);
                showWaiting.accept("waiting for the database since " + waitingSince.truncatedTo(ChronoUnit.SECONDS)
                        + " to " + what + ": " + rootMessage(e) + "; trying again");
            }
        }
    }

    /** As {@link #call} for a call that returns nothing. */
    void run(String what, String summary, Functions.Proc1<InboxActivities> call) {
        call(what, summary, store -> {
            call.apply(store);
            return null;
        });
    }

    private static boolean databaseUnavailable(ActivityFailure e) {
        return e.getCause() instanceof TimeoutFailure
                || e.getCause() instanceof ApplicationFailure failure
                        && InboxActivities.DATABASE_UNAVAILABLE.equals(failure.getType());
    }

    /** What the database said: Temporal's own message adds type and retry flags. */
    static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof TemporalFailure failure ? failure.getOriginalMessage() : cause.getMessage();
    }
}
