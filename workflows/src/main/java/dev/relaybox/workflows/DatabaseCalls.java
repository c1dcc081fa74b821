package dev.relaybox.workflows;

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
 * How a Relaybox workflow calls its own database, the one policy of both workflows. A call is a local activity (the
 * work is database-only, so it runs in the workflow task instead of taking a round trip through the server), tried
 * {@value #ATTEMPTS} times a round, one second apart at first, doubling up to a minute; waits past five seconds are
 * durable timers rather than a task held open. A round spent on an outage (the database cannot be reached, or a call
 * timed out against a server that stopped answering) is waited out: the workflow says so in its current details,
 * counts {@value #WAITS_METRIC} and starts the next round, however long the database stays away. A non-retryable
 * failure (the row is gone) is thrown at once; what a round spent on any other failure does is the caller's
 * ({@link OtherFailures}). Call from workflow code only.
 */
public final class DatabaseCalls {
    public static final int ATTEMPTS = 10;
    public static final String WAITS_METRIC = "relaybox_database_waits";
    /** The failure type of an activity that could not reach the database ({@code DatabaseFailures} in the store). */
    public static final String DATABASE_UNAVAILABLE = "DatabaseUnavailable";

    /**
     * Rounds went back to back from this version on. Before it, the delivery workflow's calls to the endpoint's
     * controls waited a {@link Backoff} between rounds of three attempts; a run recorded then replays that wait.
     */
    private static final String BACK_TO_BACK_ROUNDS = "database-calls-back-to-back";

    private static final LocalActivityOptions OPTIONS = LocalActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setMaximumInterval(Duration.ofMinutes(1))
                    .setMaximumAttempts(ATTEMPTS)
                    .build())
            .setLocalRetryThreshold(Duration.ofSeconds(5))
            .build();

    /** What a round spent on a failure other than an outage does. */
    public enum OtherFailures {
        /** The failure is thrown: the inbox dead-letters an event it cannot process. */
        THROWN,
        /** Waited out as an outage is: the delivery workflow's bookkeeping has no dead letter to fall back on. */
        WAITED_OUT
    }

    private final OtherFailures otherFailures;
    private final Consumer<String> showWaiting;
    private final boolean earlierRunsPausedBetweenRounds;

    private DatabaseCalls(
            OtherFailures otherFailures, Consumer<String> showWaiting, boolean earlierRunsPausedBetweenRounds) {
        this.otherFailures = otherFailures;
        this.showWaiting = showWaiting;
        this.earlierRunsPausedBetweenRounds = earlierRunsPausedBetweenRounds;
    }

    /** {@code showWaiting} shows the current details of a wait for the database. */
    public DatabaseCalls(OtherFailures otherFailures, Consumer<String> showWaiting) {
        this(otherFailures, showWaiting, false);
    }

    /** The same calls, for the endpoint's controls: a run recorded before rounds went back to back replays its pause. */
    public DatabaseCalls pausingBetweenRoundsInEarlierRuns() {
        return new DatabaseCalls(otherFailures, showWaiting, true);
    }

    /**
     * Calls {@code activities} until the call succeeds, a round is spent on a failure the caller does not wait out,
     * or the failure is non-retryable. {@code summary}, in the Temporal UI's timeline and in the details shown while
     * waiting: "decide order.paid for order:42".
     */
    public <A, T> T call(Class<A> activities, String summary, Functions.Func1<A, T> call) {
        A stub = Workflow.newLocalActivityStub(
                activities,
                LocalActivityOptions.newBuilder(OPTIONS)
                        .setSummary(VisibilityLimits.summary(summary))
                        .build());
        Instant waitingSince = null;
        Backoff earlierPause = Backoff.untilRelayboxRecovers();
        while (true) {
            try {
                return call.apply(stub);
            } catch (ActivityFailure e) {
                if (!waitedOut(e)) {
                    throw e;
                }
                waitingSince = waitingSince == null ? Instant.ofEpochMilli(Workflow.currentTimeMillis()) : waitingSince;
                Workflow.getMetricsScope().counter(WAITS_METRIC).inc(1);
                showWaiting.accept("waiting for the database since " + waitingSince.truncatedTo(ChronoUnit.SECONDS)
                        + " to " + summary + ": " + rootMessage(e) + "; trying again");
                if (pausesBetweenRounds()) {
                    earlierPause.sleep("waiting for Relaybox's database to answer");
                }
            }
        }
    }

    /** As {@link #call} for a call that returns nothing. */
    public <A> void run(Class<A> activities, String summary, Functions.Proc1<A> call) {
        call(activities, summary, stub -> {
            call.apply(stub);
            return null;
        });
    }

    private boolean waitedOut(ActivityFailure e) {
        if (e.getCause() instanceof ApplicationFailure failure && failure.isNonRetryable()) {
            return false;
        }
        return otherFailures == OtherFailures.WAITED_OUT
                || e.getCause() instanceof TimeoutFailure
                || e.getCause() instanceof ApplicationFailure failure && DATABASE_UNAVAILABLE.equals(failure.getType());
    }

    private boolean pausesBetweenRounds() {
        return earlierRunsPausedBetweenRounds
                && Workflow.getVersion(BACK_TO_BACK_ROUNDS, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION;
    }

    /** What the database said: Temporal's own message adds type and retry flags. */
    public static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof TemporalFailure failure ? failure.getOriginalMessage() : cause.getMessage();
    }
}
