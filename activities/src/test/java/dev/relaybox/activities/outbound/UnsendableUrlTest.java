package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What goes wrong in an attempt is the endpoint's failure, recorded and bounded by the schedule, never a retry of
 * Relaybox's own that goes on forever: a URL stored before registration refused it (a port past 65535) is
 * dead-lettered at once; an exception nobody foresaw is a failed attempt, retried on the schedule.
 */
class UnsendableUrlTest {
    static final String QUEUE = "unsendable-url-test";

    final Jdbi jdbi = TestDatabase.fresh();
    TestWorkflowEnvironment env;

    @AfterEach
    void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void aPortPastTheRangeIsRefusedAtTheAttemptAndDeadLetteredAtOnce() throws Exception {
        start(host -> List.of(InetAddress.getByName("93.184.215.14")));
        deliverTo("http://receiver.example:99999/hooks");

        assertThat(attemptErrors()).containsExactly("url port 99999 is outside 1-65535");
        assertThat(deadLetter()).containsEntry("attempts", 1);
    }

    @Test
    void anUnforeseenExceptionIsAFailedAttemptOnTheScheduleThenADeadLetter() throws Exception {
        start(host -> {
            throw new IllegalStateException("resolver broke");
        });
        deliverTo("http://receiver.example/hooks");

        assertThat(attemptErrors())
                .hasSize(2)
                .allSatisfy(error -> assertThat(error).isEqualTo("could not send: resolver broke"));
        Map<String, Object> deadLetter = deadLetter();
        assertThat(deadLetter).containsEntry("attempts", 2);
        assertThat((String) deadLetter.get("reason")).contains("gave up after 2 attempts");
    }

    private void start(HostResolver resolver) {
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(new DeliverySchedule(List.of(Duration.ofMinutes(1)), 0, Duration.ofMinutes(10)));
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(settings)
                                .withResolver(resolver),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
    }

    /** Stores the endpoint as an older release may have (no check), and runs one event's delivery to its end. */
    private void deliverTo(String url) throws Exception {
        jdbi.useExtension(
                EndpointStore.class, dao -> dao.insert("receiver", url, WebhookSigner.newSecret(), List.of("*")));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));
        OutboxDeliveryWorkflow delivery = env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build());
        WorkflowClient.start(delivery::deliver, outboxId, null);
        // Bounded: the failure this guards against is a delivery that never ends.
        WorkflowStub.fromTyped(delivery).getResult(60, TimeUnit.SECONDS, Void.class);
    }

    private List<String> attemptErrors() {
        return jdbi.withHandle(h -> h.createQuery("SELECT error FROM delivery_attempts ORDER BY attempt")
                .mapTo(String.class)
                .list());
    }

    private Map<String, Object> deadLetter() {
        return jdbi.withHandle(h -> h.createQuery("SELECT reason, attempts FROM dead_letters")
                .mapToMap()
                .one());
    }
}
