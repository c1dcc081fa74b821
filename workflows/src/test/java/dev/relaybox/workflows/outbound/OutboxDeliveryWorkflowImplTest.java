package dev.relaybox.workflows.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.contains;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.TestWorkflows;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The delivery workflow's branching with its activities mocked: no database, no HTTP, Temporal's clock skipped.
 * The activities' side of each story is in the activities module's workflow tests.
 */
class OutboxDeliveryWorkflowImplTest {
    static final UUID OUTBOX = UUID.randomUUID();
    static final UUID DELIVERY = UUID.randomUUID();
    static final UUID ENDPOINT = UUID.randomUUID();
    static final DeliverySchedule SCHEDULE = new DeliverySchedule(
            List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)), 0, Duration.ofMinutes(10));
    static final AttemptResult UNAVAILABLE = new AttemptResult(Outcome.RETRYABLE, 503, -1, "503 Service Unavailable");
    static final AttemptResult OK = new AttemptResult(Outcome.DELIVERED, 200, -1, "200 OK");
    /** Scripted answers standing for a first attempt handed over to a worker's own queue, polled or not. */
    static final AttemptResult HANDED_OVER = new AttemptResult(Outcome.RETRYABLE, 0, -1, "handed over");

    static final AttemptResult HANDED_OVER_TO_A_WORKER_GONE =
            new AttemptResult(Outcome.RETRYABLE, 0, -1, "handed over to a worker that is gone");
    static final String OWN_HTTP_QUEUE = "own-http";

    static final GateDecision GO = new GateDecision(true, 0, "", ENDPOINT, false);

    @RegisterExtension
    final TestWorkflowExtension temporal = TestWorkflows.extension(OutboxDeliveryWorkflowImpl.class);

    final DeliveryActivities delivery =
            mock(DeliveryActivities.class, withSettings().withoutAnnotations());
    final EndpointControlActivities controls =
            mock(EndpointControlActivities.class, withSettings().withoutAnnotations());
    final List<Instant> attemptTimes = Collections.synchronizedList(new ArrayList<>());
    TestWorkflowEnvironment env;

    @Test
    void retriesOnTheScheduleThenDelivers(TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, UNAVAILABLE, UNAVAILABLE, OK);

        workflow.deliver(OUTBOX, null);

        assertThat(gaps())
                .satisfiesExactly(
                        gap -> assertThat(gap).isBetween(Duration.ofMinutes(1), Duration.ofSeconds(62)),
                        gap -> assertThat(gap).isBetween(Duration.ofMinutes(5), Duration.ofSeconds(302)));
        verify(delivery, times(2)).scheduleRetry(eq(DELIVERY), any(), eq("503 Service Unavailable"));
        verify(delivery, never()).deadLetter(any(), any(), any());
        verify(delivery, never()).finish(OUTBOX);
    }

    @Test
    void aDatabaseOutageLongerThanEveryRoundOfRetriesIsWaitedOutByTheBookkeepingAndTheControls(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, UNAVAILABLE, OK);
        // A whole round of attempts and two more, for asking the controls before the first attempt and for recording
        // the retry after it.
        AtomicInteger refusedRecords = new AtomicInteger();
        doAnswer(call -> {
                    if (refusedRecords.incrementAndGet() <= DatabaseCalls.ATTEMPTS + 2) {
                        throw ApplicationFailure.newFailure("connection refused", DatabaseCalls.DATABASE_UNAVAILABLE);
                    }
                    return null;
                })
                .when(delivery)
                .scheduleRetry(eq(DELIVERY), any(), any());
        AtomicInteger refusedAdmissions = new AtomicInteger();
        when(controls.admit(eq(DELIVERY), any())).thenAnswer(call -> {
            if (refusedAdmissions.incrementAndGet() <= DatabaseCalls.ATTEMPTS + 2) {
                throw new IllegalStateException("the database did not answer");
            }
            return GO;
        });

        workflow.deliver(OUTBOX, null);

        verify(delivery, times(DatabaseCalls.ATTEMPTS + 3)).scheduleRetry(eq(DELIVERY), any(), any());
        // The second attempt is asked for once.
        verify(controls, times(DatabaseCalls.ATTEMPTS + 3 + 1)).admit(eq(DELIVERY), any());
        assertThat(attemptTimes).hasSize(2);
        assertThat(workflow.status().deliveries())
                .singleElement()
                .satisfies(d -> assertThat(d.status()).isEqualTo("delivered"));
    }

    @Test
    void retryAfterReplacesTheScheduledWaitAndIsClamped(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        AttemptResult tooManyRequests = new AttemptResult(Outcome.RETRYABLE, 429, 120, "429 Too Many Requests");
        AttemptResult comeBackTomorrow = new AttemptResult(Outcome.RETRYABLE, 503, 86_400, "503 Service Unavailable");
        start(env, worker, SCHEDULE, tooManyRequests, comeBackTomorrow, OK);

        workflow.deliver(OUTBOX, null);

        assertThat(gaps())
                .satisfiesExactly(
                        gap -> assertThat(gap).isBetween(Duration.ofSeconds(120), Duration.ofSeconds(122)),
                        gap -> assertThat(gap)
                                .as("clamped to maxRetryAfter")
                                .isBetween(Duration.ofMinutes(10), Duration.ofSeconds(602)));
    }

    @Test
    void goneDeadLettersAtOnce(TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, new AttemptResult(Outcome.GONE, 410, -1, "410 Gone"));

        workflow.deliver(OUTBOX, null);

        assertThat(attemptTimes).hasSize(1);
        verify(delivery).deadLetter(eq(DELIVERY), contains("410 Gone"), eq("410 Gone"));
        verify(delivery, never()).scheduleRetry(any(), any(), any());
        assertThat(workflow.status().deliveries())
                .singleElement()
                .satisfies(d -> assertThat(d.status()).isEqualTo("dead_lettered"));
    }

    @Test
    void spentScheduleDeadLetters(TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE);

        workflow.deliver(OUTBOX, null);

        assertThat(attemptTimes).hasSize(4);
        verify(delivery).deadLetter(eq(DELIVERY), contains("gave up after 4 attempts"), eq("503 Service Unavailable"));
    }

    @Test
    void openCircuitIsWaitedForWithoutSpendingTheSchedule(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        // Two attempts in all, yet the third is made: failures while the circuit is open are the endpoint's.
        DeliverySchedule oneRetry = new DeliverySchedule(List.of(Duration.ofMinutes(1)), 0, Duration.ofMinutes(10));
        Instant nextProbe = Instant.parse("2030-01-01T00:00:30Z");
        GateDecision circuitOpen =
                new GateDecision(false, 30_000, "circuit open; next probe at " + nextProbe, ENDPOINT, false);
        start(env, worker, oneRetry, UNAVAILABLE, UNAVAILABLE, OK);
        when(controls.admit(eq(DELIVERY), any())).thenReturn(GO, circuitOpen, GO, circuitOpen, GO);
        when(controls.settle(eq(DELIVERY), any(), any()))
                .thenReturn(
                        new CircuitState(true, nextProbe), new CircuitState(true, nextProbe), CircuitState.closed());

        workflow.deliver(OUTBOX, null);

        assertThat(attemptTimes).hasSize(3);
        assertThat(gaps()).allSatisfy(gap -> assertThat(gap).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(32)));
        verify(delivery, times(2)).scheduleRetry(DELIVERY, nextProbe, "503 Service Unavailable");
        verify(delivery, never()).deadLetter(any(), any(), any());
    }

    @Test
    void orderedDeliveryHeldForTheEarlierEventGoesWhenTheEndpointIsReady(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        GateDecision held = new GateDecision(
                false, Duration.ofHours(1).toMillis(), "order:42 has an earlier event", ENDPOINT, true);
        start(env, worker, SCHEDULE, OK);
        when(controls.admit(eq(DELIVERY), any())).thenReturn(held, new GateDecision(true, 0, "", ENDPOINT, true));

        WorkflowClient.start(workflow::deliver, OUTBOX, null);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "waiting".equals(workflow.status().status()));
        workflow.endpointReady(ENDPOINT);
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(timersFired(env, workflow))
                .as("the signal ended the hold, not the hour's timer")
                .isZero();
        verify(controls, times(2)).admit(eq(DELIVERY), any());
        verify(controls).finished(DELIVERY);
    }

    @Test
    void retryNowCutsTheBackoffShort(TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, UNAVAILABLE, OK);

        WorkflowClient.start(workflow::deliver, OUTBOX, null);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "retrying".equals(workflow.status().status()));
        assertThat(workflow.status().deliveries().get(0).nextAttemptAt())
                .isAfter(Instant.ofEpochMilli(env.currentTimeMillis()));
        workflow.retryNow();
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(attemptTimes).hasSize(2);
        assertThat(timersFired(env, workflow))
                .as("retryNow ended the backoff, not its timer")
                .isZero();
    }

    @Test
    void aBackoffCutShortByRetryNowLeavesNoTimerToFireLater(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, UNAVAILABLE, UNAVAILABLE, OK);

        WorkflowClient.start(workflow::deliver, OUTBOX, null);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "retrying".equals(workflow.status().status()));
        workflow.retryNow();
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        // The minute's timer would fire inside the five minutes' wait that follows the second failure.
        assertThat(attemptTimes).hasSize(3);
        assertThat(gaps().get(1)).isBetween(Duration.ofMinutes(5), Duration.ofSeconds(302));
        assertThat(timersFired(env, workflow))
                .as("only the five minutes' wait fired; the minute's, cut short, was cancelled")
                .isOne();
        assertThat(history(env, workflow).stream().filter(HistoryEvent::hasTimerCanceledEventAttributes))
                .hasSize(1);
    }

    @Test
    void anAttemptLostWithItsWorkerIsMadeAgainAtOnce(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, SCHEDULE, OK);
        // The first attempt's worker is gone (kill -9): the activity never answers and never heartbeats again.
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        when(delivery.send(eq(DELIVERY), anyInt())).thenAnswer(call -> {
            attemptTimes.add(Instant.ofEpochMilli(env.currentTimeMillis()));
            if (calls.getAndIncrement() == 0) {
                never.await();
            }
            return new SettledAttempt(OK, CircuitState.closed(), true);
        });

        workflow.deliver(OUTBOX, null);

        assertThat(gaps())
                .singleElement()
                .as("noticed by its missing heartbeats, not by the two-minute deadline and then the schedule")
                .satisfies(gap -> assertThat(gap).isLessThan(Duration.ofSeconds(45)));
        verify(delivery, never()).scheduleRetry(any(), any(), any());
        verify(delivery, times(2)).send(DELIVERY, 1);
        never.countDown();
    }

    @Test
    void aFirstTimeDeliveryIsOneWorkflowTaskWithTheAttemptInIt(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, true, SCHEDULE, OK);

        workflow.deliver(OUTBOX, null);

        verify(controls, never()).admit(any(), any());
        verify(delivery, never()).finish(any());
        List<HistoryEvent> history = history(env, workflow);
        assertThat(history.stream().map(HistoryEvent::getEventType))
                .as("one workflow task: the plan's and the attempt's markers, one upsert, no activity task")
                .containsExactly(
                        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
                        EventType.EVENT_TYPE_MARKER_RECORDED,
                        EventType.EVENT_TYPE_MARKER_RECORDED,
                        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
                        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
        assertThat(history.stream()
                        .filter(HistoryEvent::hasUpsertWorkflowSearchAttributesEventAttributes)
                        .findFirst()
                        .orElseThrow()
                        .getUpsertWorkflowSearchAttributesEventAttributes()
                        .getSearchAttributes()
                        .getIndexedFieldsMap())
                .as("what operators search for, as the workflow ends")
                .containsOnlyKeys("RelayEndpoints", "RelayStatus", "RelayAttempts");
    }

    @Test
    void aPlanMadeByTheStarterIsCarriedOutWithoutPlanningAgain(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, true, SCHEDULE, OK);
        DeliveryPlan claimed = delivery.plan(OUTBOX);

        workflow.deliver(OUTBOX, claimed);

        verify(delivery, times(1)).plan(OUTBOX);
        verify(delivery).send(DELIVERY, 1);
        assertThat(history(env, workflow).stream().filter(HistoryEvent::hasMarkerRecordedEventAttributes))
                .as("the attempt's marker alone")
                .hasSize(1);
        assertThat(workflow.status().deliveries())
                .singleElement()
                .satisfies(d -> assertThat(d.status()).isEqualTo("delivered"));
    }

    @Test
    void onlyTheFirstAttemptGoesWithoutAskingTheControls(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, true, SCHEDULE, UNAVAILABLE, OK);

        workflow.deliver(OUTBOX, null);

        assertThat(attemptTimes).hasSize(2);
        verify(controls, times(1)).admit(eq(DELIVERY), any());
        verify(controls, times(2)).settle(eq(DELIVERY), any(), any());
    }

    @Test
    void aFirstAttemptTheJointActivityCouldNotMakeIsMadeByItsOwnDelivery(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, true, SCHEDULE, OK);
        doReturn(Collections.singletonList(null)).when(delivery).sendFirst(any());

        workflow.deliver(OUTBOX, null);

        verify(delivery, times(1)).sendFirst(any());
        verify(delivery, times(1)).send(DELIVERY, 1);
        verify(controls, times(1)).settle(eq(DELIVERY), eq(OK), any());
        verify(delivery, never()).scheduleRetry(any(), any(), any());
    }

    @Test
    void aFailedJointActivityLeavesEachDeliveryToMakeItsOwnFirstAttempt(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        start(env, worker, true, SCHEDULE, OK);
        doThrow(new IllegalStateException("the database did not answer"))
                .when(delivery)
                .sendFirst(any());

        workflow.deliver(OUTBOX, null);

        verify(delivery, times(1)).send(DELIVERY, 1);
        verify(controls, times(1)).settle(eq(DELIVERY), eq(OK), any());
        assertThat(attemptTimes).as("one attempt, not spent from the schedule").hasSize(1);
    }

    @Test
    void aFirstAttemptHandedOverIsWaitedForAsTheSameAttemptOnItsWorkersOwnQueue(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        DeliverySchedule noRetries = new DeliverySchedule(List.of(), 0, Duration.ofMinutes(10));
        start(env, worker, true, noRetries, HANDED_OVER, OK);

        workflow.deliver(OUTBOX, null);

        verify(delivery, times(2)).send(DELIVERY, 1);
        verify(controls, times(1)).settle(eq(DELIVERY), eq(OK), any());
        verify(delivery, never()).scheduleRetry(any(), any(), any());
        assertThat(history(env, workflow).stream()
                        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
                        .map(event -> event.getActivityTaskScheduledEventAttributes()
                                .getTaskQueue()
                                .getName()))
                .as("the wait for the answer, on the queue of the worker whose request is in flight")
                .containsExactly(OWN_HTTP_QUEUE);
    }

    @Test
    void aFirstAttemptHandedOverToAWorkerThatIsGoneIsMadeAgainWithoutSpendingTheSchedule(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        DeliverySchedule noRetries = new DeliverySchedule(List.of(), 0, Duration.ofMinutes(10));
        start(env, worker, true, noRetries, HANDED_OVER_TO_A_WORKER_GONE, OK);

        workflow.deliver(OUTBOX, null);

        verify(delivery, times(2)).send(DELIVERY, 1);
        verify(delivery, never()).deadLetter(any(), any(), any());
        verify(controls, times(1)).settle(eq(DELIVERY), eq(OK), any());
    }

    /**
     * An endpoint down for the breaker's five days: its delivery probes it, as the endpoint's controls would have it
     * (every 10 minutes here, 721 probes; each adds the same 15 events at the default 30 seconds, 20 times as
     * often: 216,000 in one history would fail it after 14 hours), with the row recording each attempt, and is
     * delivered when it answers.
     */
    @Test
    void aFiveDayOutageStaysFarBelowTemporalsHistoryLimits(
            TestWorkflowEnvironment env, Worker worker, OutboxDeliveryWorkflow workflow) {
        this.env = env;
        Duration probeInterval = Duration.ofMinutes(10);
        Instant recovers = Instant.ofEpochMilli(env.currentTimeMillis()).plus(Duration.ofDays(5));
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Instant> recordedNext = new AtomicReference<>();
        AtomicReference<Instant> nextProbe = new AtomicReference<>();
        when(delivery.plan(OUTBOX))
                .thenAnswer(call -> new DeliveryPlan(
                        "order.paid",
                        "order:42",
                        List.of(new DeliveryTarget(
                                DELIVERY,
                                "shop",
                                "https://shop.example/hooks",
                                attempts.get(),
                                recordedNext.get(),
                                attempts.get() == 0)),
                        SCHEDULE,
                        DeliveryPlan.CURRENT));
        when(delivery.send(eq(DELIVERY), anyInt())).thenAnswer(call -> {
            Instant now = Instant.ofEpochMilli(env.currentTimeMillis());
            attempts.incrementAndGet();
            recordedNext.set(null);
            if (!now.isBefore(recovers)) {
                return new SettledAttempt(OK, CircuitState.closed(), true);
            }
            nextProbe.set(now.plus(probeInterval));
            return new SettledAttempt(UNAVAILABLE, new CircuitState(true, nextProbe.get()), false);
        });
        doAnswer(call -> {
                    recordedNext.set(call.getArgument(1));
                    return null;
                })
                .when(delivery)
                .scheduleRetry(eq(DELIVERY), any(), any());
        when(controls.admit(eq(DELIVERY), any())).thenAnswer(call -> {
            Instant now = call.getArgument(1);
            long wait = nextProbe.get() == null
                    ? 0
                    : Duration.between(now, nextProbe.get()).toMillis();
            return new GateDecision(wait <= 0, Math.max(wait, 0), "circuit open", ENDPOINT, false);
        });
        firstAttemptsTogetherAsEachAlone();
        worker.registerActivitiesImplementations(delivery, controls);
        env.newWorker(OutboxDeliveryWorkflow.httpTaskQueue(worker.getTaskQueue()))
                .registerActivitiesImplementations(delivery);
        env.start();

        workflow.deliver(OUTBOX, null);

        assertThat(attempts.get()).as("a probe every 10 minutes for five days").isGreaterThan(700);
        List<Integer> runLengths =
                runLengths(env, WorkflowStub.fromTyped(workflow).getExecution());
        assertThat(runLengths)
                .as("events of each run: it continues as new once the history is long and the delivery waits")
                .hasSizeGreaterThan(1)
                .allSatisfy(events ->
                        assertThat(events).isLessThan(OutboxDeliveryWorkflowImpl.CONTINUE_AS_NEW_AFTER_EVENTS + 100));
    }

    /**
     * One delivery to one endpoint that answers {@code answers} in turn; endpoint controls let every attempt go. Each
     * attempt reports to {@code controls.settle}, as the real one does, and a delivered one finishes the row.
     */
    private void start(
            TestWorkflowEnvironment env, Worker worker, DeliverySchedule schedule, AttemptResult... answers) {
        start(env, worker, false, schedule, answers);
    }

    private void start(
            TestWorkflowEnvironment env,
            Worker worker,
            boolean goesAtOnce,
            DeliverySchedule schedule,
            AttemptResult... answers) {
        this.env = env;
        DeliveryTarget target = new DeliveryTarget(DELIVERY, "shop", "https://shop.example/hooks", 0, null, goesAtOnce);
        when(delivery.plan(OUTBOX))
                .thenReturn(
                        new DeliveryPlan("order.paid", "order:42", List.of(target), schedule, DeliveryPlan.CURRENT));
        List<AttemptResult> script = Arrays.asList(answers);
        AtomicInteger next = new AtomicInteger();
        when(delivery.send(eq(DELIVERY), anyInt())).thenAnswer(call -> {
            Instant now = Instant.ofEpochMilli(env.currentTimeMillis());
            attemptTimes.add(now);
            AttemptResult result = script.get(Math.min(next.getAndIncrement(), script.size() - 1));
            if (result == HANDED_OVER || result == HANDED_OVER_TO_A_WORKER_GONE) {
                return SettledAttempt.handedOver(new SettledAttempt.HandOver(
                        result == HANDED_OVER ? OWN_HTTP_QUEUE : "a-worker-gone-http", Duration.ofSeconds(1)));
            }
            return new SettledAttempt(
                    result, controls.settle(DELIVERY, result, now), result.outcome() == Outcome.DELIVERED);
        });
        when(controls.admit(eq(DELIVERY), any())).thenReturn(GO);
        when(controls.settle(eq(DELIVERY), any(), any())).thenReturn(CircuitState.closed());
        firstAttemptsTogetherAsEachAlone();
        worker.registerActivitiesImplementations(delivery, controls);
        env.newWorker(OutboxDeliveryWorkflow.httpTaskQueue(worker.getTaskQueue()))
                .registerActivitiesImplementations(delivery);
        env.newWorker(OWN_HTTP_QUEUE).registerActivitiesImplementations(delivery);
        env.start();
    }

    /** First attempts made together answer as the scripted {@code send} of each would. */
    private void firstAttemptsTogetherAsEachAlone() {
        when(delivery.sendFirst(any())).thenAnswer(call -> {
            List<FirstAttempt> attempts = call.getArgument(0);
            return attempts.stream()
                    .map(first -> delivery.send(first.deliveryId(), first.attempt()))
                    .toList();
        });
    }

    /** Timers that fired; after the workflow closed, the test server's clock is no measure of its waits. */
    private static long timersFired(TestWorkflowEnvironment env, OutboxDeliveryWorkflow workflow) {
        return history(env, workflow).stream()
                .filter(HistoryEvent::hasTimerFiredEventAttributes)
                .count();
    }

    /** The number of events of each run, from {@code first} along its continue-as-new chain. */
    private static List<Integer> runLengths(TestWorkflowEnvironment env, WorkflowExecution first) {
        List<Integer> lengths = new ArrayList<>();
        String runId = first.getRunId();
        while (runId != null) {
            List<HistoryEvent> events = env.getWorkflowClient()
                    .fetchHistory(first.getWorkflowId(), runId)
                    .getEvents();
            lengths.add(events.size());
            HistoryEvent last = events.get(events.size() - 1);
            runId = last.hasWorkflowExecutionContinuedAsNewEventAttributes()
                    ? last.getWorkflowExecutionContinuedAsNewEventAttributes().getNewExecutionRunId()
                    : null;
        }
        return lengths;
    }

    private static List<HistoryEvent> history(TestWorkflowEnvironment env, OutboxDeliveryWorkflow workflow) {
        String workflowId = WorkflowStub.fromTyped(workflow).getExecution().getWorkflowId();
        return env.getWorkflowClient().fetchHistory(workflowId).getEvents();
    }

    private List<Duration> gaps() {
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < attemptTimes.size(); i++) {
            gaps.add(Duration.between(attemptTimes.get(i - 1), attemptTimes.get(i)));
        }
        return gaps;
    }
}
