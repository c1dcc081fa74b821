package dev.relaybox.activities.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.workflows.inbound.InboxEventWorkflowImpl;
import dev.relaybox.workflows.outbound.DeliveryPlan;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import dev.relaybox.workflows.outbound.OutboxProgress;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.NonDeterministicException;
import io.temporal.workflow.Workflow;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows still running when a new release is deployed are replayed by the new code. Every history recorded by
 * an earlier release (see {@link RecordedHistories}) must replay against today's implementations; a change that
 * would break them fails here and needs {@code Workflow.getVersion}.
 */
class ReplayCompatibilityTest {
    private static final String RETRIED = "/histories/1.0.0/outbound-retried-then-delivered.json";

    /** Every path of the workflows that a running workflow of 1.0.0 can be on when a later release is deployed. */
    private static final List<String> RELEASE_1_0_0 = Stream.of(
                    "outbound-delivered-first-time",
                    "outbound-retried-then-delivered",
                    "outbound-retry-after-honoured",
                    "outbound-dead-lettered-after-the-schedule",
                    "outbound-gone",
                    "outbound-waited-for-open-circuit",
                    "outbound-held-for-earlier-event",
                    "outbound-replayed-dead-letter",
                    "inbound-applied",
                    "inbound-applied-releasing-a-deferred-event",
                    "inbound-deferred-then-released",
                    "inbound-deferral-expired",
                    "inbound-stale",
                    "inbound-rejected",
                    "inbound-database-outage-waited-out")
            .map(name -> "/histories/1.0.0/" + name + ".json")
            .toList();

    static Stream<String> recordedHistories() throws IOException, URISyntaxException {
        Path root =
                Path.of(ReplayCompatibilityTest.class.getResource("/histories").toURI());
        try (Stream<Path> files = Files.walk(root)) {
            List<String> resources = files.filter(f -> f.toString().endsWith(".json"))
                    .map(f -> "/histories/" + root.relativize(f).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
            assertThat(resources).as("recorded histories").containsAll(RELEASE_1_0_0);
            return resources.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("recordedHistories")
    void historyRecordedByAnEarlierReleaseReplays(String resource) {
        Class<?> implementation =
                resource.contains("/outbound-") ? OutboxDeliveryWorkflowImpl.class : InboxEventWorkflowImpl.class;

        assertThatCode(() ->
                        WorkflowReplayer.replayWorkflowExecutionFromResource(resource.substring(1), implementation))
                .doesNotThrowAnyException();
    }

    @Test
    void anUnguardedChangeFailsTheReplay() {
        assertThatThrownBy(() -> WorkflowReplayer.replayWorkflowExecutionFromResource(
                        RETRIED.substring(1), DelayedFirstAttempt.class))
                // The replayer reports the workflow task's failure as text.
                .hasMessageContaining(NonDeterministicException.class.getName())
                // Replay expected the new timer; the history's first command is the plan's local activity.
                .hasMessageContaining("Local activity of type DeliveryPlan is recorded in the history");
    }

    @Test
    void theSameChangeGuardedByGetVersionReplays() {
        assertThatCode(() -> WorkflowReplayer.replayWorkflowExecutionFromResource(
                        RETRIED.substring(1), VersionedDelayedFirstAttempt.class))
                .doesNotThrowAnyException();
    }

    /** Today's delivery workflow with a new timer before the first attempt: a typical incompatible change. */
    public static class DelayedFirstAttempt implements OutboxDeliveryWorkflow {
        private final OutboxDeliveryWorkflowImpl current = new OutboxDeliveryWorkflowImpl();

        protected void beforeFirstAttempt() {
            Workflow.sleep(Duration.ofSeconds(30));
        }

        @Override
        public void deliver(UUID outboxId, DeliveryPlan plan) {
            beforeFirstAttempt();
            current.deliver(outboxId, plan);
        }

        @Override
        public void retryNow() {
            current.retryNow();
        }

        @Override
        public void replan() {
            current.replan();
        }

        @Override
        public void endpointReady(UUID endpointId) {
            current.endpointReady(endpointId);
        }

        @Override
        public OutboxProgress status() {
            return current.status();
        }
    }

    /** The same change as new code paths should make it: old histories keep the old path. */
    public static class VersionedDelayedFirstAttempt extends DelayedFirstAttempt {
        @Override
        protected void beforeFirstAttempt() {
            if (Workflow.getVersion("delay-first-attempt", Workflow.DEFAULT_VERSION, 1) == 1) {
                super.beforeFirstAttempt();
            }
        }
    }
}
