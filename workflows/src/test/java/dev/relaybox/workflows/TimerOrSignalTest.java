package dev.relaybox.workflows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A wait cut short by its signal on the engine Relaybox embeds when no Temporal CLI is installed (the SDK's test
 * server): that server refuses to cancel a timer that came due while the workflow task cancelling it ran, and the
 * workflow then waits forever. A timer about to fire is therefore left to fire.
 */
class TimerOrSignalTest {
    @RegisterExtension
    final TestWorkflowExtension temporal = TestWorkflows.extension(WaitingWorkflowImpl.class);

    @Test
    void aWaitWokenJustBeforeItsTimerIsDueFinishesThoughTheTimerFiresMeanwhile(
            TestWorkflowEnvironment env, Worker worker, WorkflowClient client) throws Exception {
        WaitingWorkflow workflow = waiting(env, worker, client, "woken-before-its-timer", Duration.ofSeconds(5));

        // The task that handles the signal outlasts the timer's five seconds: the server fires it meanwhile.
        workflow.wake();

        assertThat(WorkflowStub.fromTyped(workflow).getResult(30, TimeUnit.SECONDS, Boolean.class))
                .as("woken by the signal")
                .isFalse();
    }

    @Test
    void aWaitWokenLongBeforeItsTimerIsDueCancelsTheTimer(
            TestWorkflowEnvironment env, Worker worker, WorkflowClient client) throws Exception {
        WaitingWorkflow workflow = waiting(env, worker, client, "woken-long-before-its-timer", Duration.ofHours(1));

        workflow.wake();

        assertThat(WorkflowStub.fromTyped(workflow).getResult(30, TimeUnit.SECONDS, Boolean.class))
                .isFalse();
        assertThat(client.fetchHistory("woken-long-before-its-timer").getEvents())
                .filteredOn(HistoryEvent::hasTimerCanceledEventAttributes)
                .hasSize(1);
    }

    /** A run whose timer has started, waiting for it or the signal. */
    private static WaitingWorkflow waiting(
            TestWorkflowEnvironment env, Worker worker, WorkflowClient client, String workflowId, Duration timer) {
        worker.registerActivitiesImplementations(new RealTimePause());
        env.start();
        WaitingWorkflow workflow = client.newWorkflowStub(
                WaitingWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(worker.getTaskQueue())
                        .setWorkflowId(workflowId)
                        .build());
        WorkflowClient.start(workflow::waitFor, timer.toMillis());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.fetchHistory(workflowId).getEvents().stream()
                        .anyMatch(HistoryEvent::hasTimerStartedEventAttributes));
        return workflow;
    }

    @WorkflowInterface
    public interface WaitingWorkflow {
        /** True when the timer fired, false when the signal cut the wait short. */
        @WorkflowMethod
        boolean waitFor(long timerMillis);

        @SignalMethod
        void wake();
    }

    public static final class WaitingWorkflowImpl implements WaitingWorkflow {
        private boolean woken;

        @Override
        public boolean waitFor(long timerMillis) {
            boolean fired =
                    TimerOrSignal.awaitCancellingTheTimer(Duration.ofMillis(timerMillis), "wait", () -> woken, true);
            Workflow.newLocalActivityStub(
                            Pause.class,
                            LocalActivityOptions.newBuilder()
                                    .setStartToCloseTimeout(Duration.ofSeconds(10))
                                    .build())
                    .pause();
            // Not the end of the run, whose completion the server would refuse for the fired timer before it
            // looked at the cancel: a run goes on after a wait, as a delivery makes its next attempt.
            Workflow.sleep(Duration.ofSeconds(1));
            return fired;
        }

        @Override
        public void wake() {
            woken = true;
        }
    }

    @ActivityInterface
    public interface Pause {
        void pause();
    }

    /** Six seconds of real time inside the workflow task: the test server's clock runs in real time meanwhile. */
    static final class RealTimePause implements Pause {
        @Override
        public void pause() {
            try {
                Thread.sleep(6_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
