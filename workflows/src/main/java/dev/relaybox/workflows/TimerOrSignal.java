package dev.relaybox.workflows;

import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * A Relaybox workflow's wait for time: a durable timer, described in the Temporal UI's timeline by its summary, that a
 * signal can cut short ({@code signalled} turns true: an operator's {@code retryNow}, a {@code release}, an
 * endpoint's {@code endpointReady}). Call from workflow code only.
 */
public final class TimerOrSignal {
    private TimerOrSignal() {}

    /**
     * Waits until the timer fires or {@code signalled} holds; true when the timer fired. A timer cut short keeps
     * running and later fires to nothing.
     */
    public static boolean await(Duration wait, String summary, Functions.Func<Boolean> signalled) {
        return await(wait, summary, signalled, over -> Workflow.await(over::apply));
    }

    /**
     * As above, with the waiting itself left to {@code waiting}, which must return once {@code over} holds (and may
     * keep track of who waits for what meanwhile).
     */
    public static boolean await(
            Duration wait,
            String summary,
            Functions.Func<Boolean> signalled,
            Functions.Proc1<Functions.Func<Boolean>> waiting) {
        Promise<Void> timer = Workflow.newTimer(wait, options(summary));
        waiting.apply(() -> timer.isCompleted() || signalled.apply());
        return timer.isCompleted();
    }

    /**
     * A timer cut short this close to coming due is left to fire rather than cancelled. The SDK's test server, the
     * engine embedded mode falls back to, refuses to cancel a timer that came due while the workflow task cancelling
     * it ran, and the run then waits forever (temporalio/sdk-java#3088). That server keeps its clock from skipping
     * while a workflow task is out, and a task sends its commands within its ten-second timeout (a long local
     * activity heartbeats it), so a timer further off than this cannot come due meanwhile.
     */
    public static final Duration ABOUT_TO_FIRE = Duration.ofSeconds(30);

    /**
     * As {@link #await}, but a timer cut short is cancelled, unless it was {@link #ABOUT_TO_FIRE} and
     * {@code keepOneAboutToFire}: a long wait woken often leaves no trail of timers firing for nothing.
     */
    public static boolean awaitCancellingTheTimer(
            Duration wait, String summary, Functions.Func<Boolean> signalled, boolean keepOneAboutToFire) {
        return awaitCancellingTheTimer(
                wait, summary, signalled, over -> Workflow.await(over::apply), keepOneAboutToFire);
    }

    /** As above, keeping one about to fire, with the waiting itself left to {@code waiting} as for {@link #await}. */
    public static boolean awaitCancellingTheTimer(
            Duration wait,
            String summary,
            Functions.Func<Boolean> signalled,
            Functions.Proc1<Functions.Func<Boolean>> waiting) {
        return awaitCancellingTheTimer(wait, summary, signalled, waiting, true);
    }

    private static boolean awaitCancellingTheTimer(
            Duration wait,
            String summary,
            Functions.Func<Boolean> signalled,
            Functions.Proc1<Functions.Func<Boolean>> waiting,
            boolean keepOneAboutToFire) {
        long dueMillis = Workflow.currentTimeMillis() + wait.toMillis();
        Promise<?>[] timer = new Promise<?>[1];
        CancellationScope scope =
                Workflow.newCancellationScope(() -> timer[0] = Workflow.newTimer(wait, options(summary)));
        scope.run();
        waiting.apply(() -> timer[0].isCompleted() || signalled.apply());
        if (timer[0].isCompleted()) {
            return true;
        }
        boolean aboutToFire = dueMillis - Workflow.currentTimeMillis() <= ABOUT_TO_FIRE.toMillis();
        if (!(keepOneAboutToFire && aboutToFire)) {
            scope.cancel();
        }
        return false;
    }

    /** Waits for the timer alone: a wait nothing may cut short (a rate limit's reserved slot). */
    public static void sleep(Duration wait, String summary) {
        await(wait, summary, () -> false);
    }

    private static TimerOptions options(String summary) {
        return TimerOptions.newBuilder()
                .setSummary(VisibilityLimits.summary(summary))
                .build();
    }
}
