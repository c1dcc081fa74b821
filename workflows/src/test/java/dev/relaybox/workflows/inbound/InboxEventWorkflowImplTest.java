package dev.relaybox.workflows.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.contains;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import dev.relaybox.workflows.DatabaseCalls;
import dev.relaybox.workflows.TestWorkflows;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
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
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The inbox workflow's branching with its activities mocked: no database, Temporal's clock skipped. The activities'
 * side of each story is in the activities module's workflow tests.
 */
class InboxEventWorkflowImplTest {
    static final UUID INBOX = UUID.randomUUID();
    static final String WAITING = "waiting for order.paid: entity is created";
    static final InboxOutcome DEFERRED =
            new InboxOutcome(Outcome.DEFERRED, WAITING, "order.paid", "created", 1, false, List.of());
    static final InboxOutcome APPLIED = new InboxOutcome(
            Outcome.APPLIED,
            "order.shipped moves the entity from paid to shipped",
            null,
            "shipped",
            2,
            false,
            List.of());

    static final InboxPlan PLAN = new InboxPlan(
            "shop", "order.shipped", "order:42", Duration.ofHours(1), Duration.ofHours(4), null, InboxPlan.CURRENT);

    @RegisterExtension
    final TestWorkflowExtension temporal = TestWorkflows.extension(InboxEventWorkflowImpl.class);

    final InboxActivities inbox = mock(InboxActivities.class, withSettings().withoutAnnotations());

    @Test
    void deferredEventDecidesAgainAtOnceWhenReleased(
            TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        when(inbox.decide(INBOX)).thenReturn(DEFERRED, APPLIED);
        long startedAt = env.currentTimeMillis();

        WorkflowClient.start(workflow::process, INBOX, null);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "deferred".equals(workflow.status().status()));
        assertThat(workflow.status().nextRecheckAt()).isAfter(Instant.ofEpochMilli(startedAt));
        workflow.release();
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(env
                        .getWorkflowClient()
                        .fetchHistory(
                                WorkflowStub.fromTyped(workflow).getExecution().getWorkflowId())
                        .getEvents()
                        .stream()
                        .filter(HistoryEvent::hasTimerFiredEventAttributes))
                .as("the release ended the wait, not the hour's recheck")
                .isEmpty();
        verify(inbox, times(2)).decide(INBOX);
        verify(inbox).recordDeferralStart(eq(INBOX), any());
        verify(inbox, never()).deadLetter(any(), any(), any());
        assertThat(workflow.status().status()).isEqualTo("processed");
    }

    @Test
    void deferralPastItsMaximumIsDeadLettered(TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        List<Instant> decisions = Collections.synchronizedList(new ArrayList<>());
        when(inbox.decide(INBOX)).thenAnswer(call -> {
            decisions.add(Instant.ofEpochMilli(env.currentTimeMillis()));
            return DEFERRED;
        });

        workflow.process(INBOX, null);

        // Decided at 0, 1, 2, 3 and 4 hours: the recheck interval, up to the four hours' deadline.
        verify(inbox, times(5)).decide(INBOX);
        verify(inbox).deadLetter(eq(INBOX), contains("still deferred after 4h"), eq(WAITING));
        // The deadline counts from the deferral's start, recorded just after the first decision.
        assertThat(Duration.between(decisions.get(0), decisions.get(4)))
                .isBetween(
                        Duration.ofHours(4).minusMinutes(1), Duration.ofHours(4).plusMinutes(1));
        assertThat(workflow.status().status()).isEqualTo("dead_lettered");
    }

    @Test
    void databaseOutageLongerThanEveryRetryIsWaitedOut(
            TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        AtomicInteger refused = new AtomicInteger();
        // Two whole rounds of the store call's ten attempts, and two more: the workflow calls again after each round.
        when(inbox.decide(INBOX)).thenAnswer(call -> {
            if (refused.incrementAndGet() <= 22) {
                throw ApplicationFailure.newFailure("connection refused", DatabaseCalls.DATABASE_UNAVAILABLE);
            }
            return APPLIED;
        });

        workflow.process(INBOX, null);

        verify(inbox, times(23)).decide(INBOX);
        verify(inbox, never()).deadLetter(any(), any(), any());
        assertThat(workflow.status().status()).isEqualTo("processed");
    }

    @Test
    void anEventAppliedAtOnceRecordsItsTwoStepsAndOneUpsert(
            TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        when(inbox.decide(INBOX)).thenReturn(APPLIED);

        workflow.process(INBOX, null);

        String workflowId = WorkflowStub.fromTyped(workflow).getExecution().getWorkflowId();
        List<HistoryEvent> history =
                env.getWorkflowClient().fetchHistory(workflowId).getEvents();
        assertThat(history.stream().map(HistoryEvent::getEventType))
                .as("one workflow task: the plan's and the decision's markers, then what operators search for")
                .containsExactly(
                        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
                        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
                        EventType.EVENT_TYPE_MARKER_RECORDED,
                        EventType.EVENT_TYPE_MARKER_RECORDED,
                        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
                        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
        assertThat(history.get(6)
                        .getUpsertWorkflowSearchAttributesEventAttributes()
                        .getSearchAttributes()
                        .getIndexedFieldsMap())
                .containsOnlyKeys("RelayStatus", "RelayAttempts");
        assertThat(workflow.status().status()).isEqualTo("processed");
    }

    @Test
    void aReleaseThatArrivesWhileTheRunClosesOnARejectionIsDecidedAgain(
            TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        InboxOutcome rejected = new InboxOutcome(Outcome.REJECTED, "no aggregate id", null, null, 1, false, List.of());
        AtomicInteger decisions = new AtomicInteger();
        when(inbox.decide(INBOX)).thenAnswer(call -> {
            if (decisions.incrementAndGet() == 1) {
                // The dead letter is recorded and replayed at once: its run has not closed yet.
                WorkflowStub.fromTyped(workflow).signal("release");
                return rejected;
            }
            return APPLIED;
        });

        WorkflowClient.start(workflow::process, INBOX, null);
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        assertThat(decisions).hasValue(2);
        assertThat(workflow.status().status()).isEqualTo("processed");
    }

    @Test
    void aPlanMadeByTheStarterIsCarriedOutWithoutReadingTheRow(
            TestWorkflowEnvironment env, Worker worker, InboxEventWorkflow workflow) {
        start(env, worker);
        when(inbox.decide(INBOX)).thenReturn(DEFERRED, APPLIED);

        WorkflowClient.start(workflow::process, INBOX, PLAN);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> "deferred".equals(workflow.status().status()));
        workflow.release();
        WorkflowStub.fromTyped(workflow).getResult(Void.class);

        verify(inbox, never()).plan(any());
        verify(inbox, times(2)).decide(INBOX);
        assertThat(workflow.status().status()).isEqualTo("processed");
    }

    private void start(TestWorkflowEnvironment env, Worker worker) {
        when(inbox.plan(INBOX)).thenReturn(PLAN);
        worker.registerActivitiesImplementations(inbox);
        env.start();
    }
}
