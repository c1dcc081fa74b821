package dev.relaybox.service.temporal;

import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.SettledAttempt;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the worker sees of the embedded engine's work, for recycling it: how many executions finished since the engine
 * started, and the HTTP attempts whose outcome is not yet in the database.
 *
 * <p>Finished executions are counted where they finish, in the worker: a run that returns, fails or continues as new
 * while not replaying. Replays (a query on a closed run, a run evicted from the cache) are not counted, so neither the
 * admin pages nor cache pressure make the count drift; every execution Relaybox creates finishes on this worker, so
 * it is the number of executions the test server holds for good.
 *
 * <p>An HTTP attempt is unsettled from when its activity starts until its outcome is recorded: a delivery, a pause or a
 * refused URL by the attempt activity itself; a failure only once the workflow has written the retry time or the dead
 * letter ({@code scheduleRetry}/{@code deadLetter}, run as local activities in the task that receives the result). A
 * run started afresh from the rows between those two points would attempt again at once instead of at the recorded
 * time; one started while the attempt is in flight would send the webhook a second time.
 */
final class RecyclingWatch extends WorkerInterceptorBase {
    /** The attempt activity, as release 1.0's workflows call it and as every later one does (it settles itself). */
    private static final Set<String> HTTP_ATTEMPTS = Set.of("DeliveryAttempt", "DeliverySend");

    private static final Set<String> RECORDS_FAILED_ATTEMPT = Set.of("DeliveryScheduleRetry", "DeliveryDeadLetter");
    private static final Set<AttemptResult.Outcome> RECORDED_BY_WORKFLOW =
            Set.of(AttemptResult.Outcome.RETRYABLE, AttemptResult.Outcome.PERMANENT, AttemptResult.Outcome.GONE);

    private final AtomicLong finishedExecutions = new AtomicLong();
    private final Object lock = new Object();
    private boolean attemptsStopped;
    private int attemptsInFlight;
    /** Deliveries whose failed attempt the workflow has still to record. */
    private final Set<Object> failuresToRecord = new HashSet<>();

    long finishedExecutions() {
        return finishedExecutions.get();
    }

    /** No HTTP attempt starts from now on: one that a poll still hands over fails as Relaybox's own fault, unsent. */
    void stopAttempts() {
        synchronized (lock) {
            attemptsStopped = true;
        }
    }

    /**
     * Waits until no attempt runs and every failed one is recorded; false when {@code limit} passed first (a workflow
     * task that never came), in which case the caller goes on: a run started afresh may attempt early, never lose one.
     */
    boolean awaitSettled(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lock) {
            while (attemptsInFlight > 0 || !failuresToRecord.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    /** What is still unsettled, for the log. */
    String unsettled() {
        synchronized (lock) {
            return attemptsInFlight + " attempts in flight, " + failuresToRecord.size() + " failed attempts unrecorded";
        }
    }

    /** For a fresh engine: attempts may start again, and its finished executions are counted from zero. */
    void freshEngine() {
        synchronized (lock) {
            attemptsStopped = false;
            failuresToRecord.clear();
            finishedExecutions.set(0);
        }
    }

    private boolean beginAttempt() {
        synchronized (lock) {
            if (attemptsStopped) {
                return false;
            }
            attemptsInFlight++;
            return true;
        }
    }

    private void endAttempt(Object deliveryId, Object result) {
        synchronized (lock) {
            AttemptResult attempt =
                    result instanceof SettledAttempt settled ? settled.result() : (AttemptResult) result;
            if (attempt != null && RECORDED_BY_WORKFLOW.contains(attempt.outcome())) {
                failuresToRecord.add(deliveryId);
            }
            attemptsInFlight--;
            lock.notifyAll();
        }
    }

    private void recorded(Object deliveryId) {
        synchronized (lock) {
            if (failuresToRecord.remove(deliveryId)) {
                lock.notifyAll();
            }
        }
    }

    @Override
    public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
        return new ActivityInboundCallsInterceptorBase(next) {
            private ActivityInfo info;

            @Override
            public void init(ActivityExecutionContext context) {
                info = context.getInfo();
                super.init(context);
            }

            @Override
            public ActivityOutput execute(ActivityInput input) {
                String type = info.getActivityType();
                Object deliveryId = input.getArguments().length > 0 ? input.getArguments()[0] : null;
                if (HTTP_ATTEMPTS.contains(type) && !info.isLocal()) {
                    if (!beginAttempt()) {
                        // Retryable: the workflow counts it as Relaybox's fault, not an attempt, and tries later.
                        throw ApplicationFailure.newFailure(
                                "the embedded Temporal server is being recycled; nothing was sent", "EngineRecycling");
                    }
                    Object result = null;
                    try {
                        ActivityOutput output = super.execute(input);
                        result = output.getResult();
                        return output;
                    } finally {
                        endAttempt(deliveryId, result);
                    }
                }
                ActivityOutput output = super.execute(input);
                if (RECORDS_FAILED_ATTEMPT.contains(type)) {
                    recorded(deliveryId);
                }
                return output;
            }
        };
    }

    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
        return new WorkflowInboundCallsInterceptorBase(next) {
            @Override
            public void init(WorkflowOutboundCallsInterceptor outboundCalls) {
                super.init(new WorkflowOutboundCallsInterceptorBase(outboundCalls) {
                    @Override
                    public void continueAsNew(ContinueAsNewInput input) {
                        finished();
                        super.continueAsNew(input);
                    }
                });
            }

            @Override
            public WorkflowOutput execute(WorkflowInput input) {
                try {
                    WorkflowOutput output = super.execute(input);
                    finished();
                    return output;
                } catch (TemporalFailure failure) {
                    // Fails the execution (anything else fails only the task, which is retried).
                    finished();
                    throw failure;
                }
            }
        };
    }

    private void finished() {
        if (!Workflow.isReplaying()) {
            finishedExecutions.incrementAndGet();
        }
    }
}
