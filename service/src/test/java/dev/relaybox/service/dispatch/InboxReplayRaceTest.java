package dev.relaybox.service.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.service.config.DispatcherFactory;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.inbound.InboxActivities;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxEventWorkflowImpl;
import dev.relaybox.workflows.inbound.InboxOutcome;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import dev.relaybox.workflows.inbound.InboxPlan;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dead letter replayed the instant it is recorded, while the run that quarantined the event is still closing: the
 * dispatcher's start of the reopened row must reach that run, not be answered "already started" and left to the
 * reconciler. The inbox activities are a fake whose first decision replays the event before it answers, which puts
 * the replay inside the run's last workflow task every time; the dispatcher, its claim and its start are real.
 */
class InboxReplayRaceTest {
    static final String QUEUE = "inbox-replay-race";

    final Jdbi jdbi = TestDatabase.fresh();
    final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    final Dispatcher dispatcher = new Dispatcher(
            jdbi,
            List.of(new InboxDispatchSource(new WorkflowStarter(env.getWorkflowClient(), QUEUE))),
            new DispatcherFactory(),
            DeadLetters.loggingOnly());
    final AtomicInteger decisions = new AtomicInteger();
    /** The first dispatch pass has returned: a pass still looping would take the replayed row up itself. */
    final CountDownLatch firstPassDone = new CountDownLatch(1);

    @AfterEach
    void stop() {
        env.close();
    }

    @Test
    void aReplayWhileTheRejectingRunClosesIsDecidedOnce() {
        UUID inboxId = jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, payload,
                                                   signature_verified, status)
                        VALUES ('shop', 'evt-race', 'order.created', 'order', '{}', true, 'RECEIVED')
                        RETURNING id""").mapTo(UUID.class).one());
        RelaySearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
        Worker worker = env.newWorker(QUEUE, TestEngine.WORKER_OPTIONS);
        worker.registerWorkflowImplementationTypes(InboxEventWorkflowImpl.class);
        worker.registerActivitiesImplementations(new ReplayedOnItsFirstDecision(inboxId));
        env.start();

        assertThat(dispatcher.dispatchAll()).isEqualTo(1);
        firstPassDone.countDown();

        String workflowId = InboxEventWorkflow.workflowId("shop", "evt-race");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> env.getWorkflowClient()
                                .newUntypedWorkflowStub(workflowId)
                                .describe()
                                .getStatus()
                        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
        assertThat(decisions).as("rejected, then decided again once replayed").hasValue(2);
        assertThat(env.getWorkflowClient()
                        .newWorkflowStub(InboxEventWorkflow.class, workflowId)
                        .status()
                        .status())
                .isEqualTo("processed");
    }

    /** Rejects the event first, replaying it as an operator would before the rejecting run has closed; then applies it. */
    private final class ReplayedOnItsFirstDecision implements InboxActivities {
        private final UUID inboxId;

        ReplayedOnItsFirstDecision(UUID inboxId) {
            this.inboxId = inboxId;
        }

        @Override
        public InboxPlan plan(UUID id) {
            return new InboxPlan(
                    "shop",
                    "order.created",
                    "order:1",
                    Duration.ofHours(1),
                    Duration.ofHours(4),
                    null,
                    InboxPlan.CURRENT);
        }

        @Override
        public InboxOutcome decide(UUID id) {
            if (decisions.incrementAndGet() > 1) {
                return new InboxOutcome(Outcome.APPLIED, "order.created", null, "created", 2, false, List.of());
            }
            // Quarantined with a dead letter, which is replayed at once: resolved, and the row undispatched again.
            try {
                assertThat(firstPassDone.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            jdbi.useHandle(h -> {
                h.createUpdate("""
                                INSERT INTO dead_letters (source, reference, reason, resolved_at, resolved_by, resolution)
                                VALUES ('INBOX', :id, 'no aggregate id', now(), 'alice', 'REPLAYED')""").bind("id", inboxId).execute();
                h.createUpdate("UPDATE webhook_inbox SET dispatched_at = NULL WHERE id = :id")
                        .bind("id", inboxId)
                        .execute();
            });
            assertThat(dispatcher.dispatchAll()).isEqualTo(1);
            return new InboxOutcome(Outcome.REJECTED, "no aggregate id", null, null, 1, false, List.of());
        }

        @Override
        public void recordDeferralStart(UUID id, Instant deferredSince) {}

        @Override
        public void deadLetter(UUID id, String reason, String lastError) {}
    }
}
