package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.store.EndpointStore;
import dev.relaybox.activities.store.TestDatabase;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.workflows.RelaySearchAttributes;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflowImpl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name that does not resolve is a DNS hiccup until the schedule says otherwise: retried, not dead-lettered
 * at once. The resolver is scripted, so no lookup leaves this machine.
 */
class DnsFailureTest {
    static final String QUEUE = "dns-test";

    final Jdbi jdbi = TestDatabase.fresh();
    final AtomicInteger lookups = new AtomicInteger();
    TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        env = TestWorkflowEnvironment.newInstance();
        RelaySearchAttributes.ALL.forEach(key -> env.registerSearchAttribute(key.getName(), key.getValueType()));
        Worker worker = env.newWorker(QUEUE);
        worker.registerWorkflowImplementationTypes(OutboxDeliveryWorkflowImpl.class);
        HostResolver failing = host -> {
            lookups.incrementAndGet();
            throw new UnknownHostException(host + ": Temporary failure in name resolution");
        };
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(new DeliverySchedule(List.of(Duration.ofMinutes(1), Duration.ofMinutes(5)), 0,
                        Duration.ofMinutes(10)))
                .withAllowPrivateNetworks(false);
        DeliveryActivitiesImpl activities = new DeliveryActivitiesImpl(jdbi, settings, DeadLetters.loggingOnly(),
                new SimpleMeterRegistry(), failing);
        worker.registerActivitiesImplementations(activities,
                new EndpointControlActivitiesImpl(jdbi, CircuitSettings.defaults(), new SimpleMeterRegistry()));
        env.newWorker(OutboxDeliveryWorkflow.httpTaskQueue(QUEUE)).registerActivitiesImplementations(activities);
        env.start();
    }

    @AfterEach
    void stop() {
        env.close();
    }

    @Test
    void unresolvableHostIsRetriedOnTheScheduleNotDeadLetteredAtOnce() {
        jdbi.useExtension(EndpointStore.class, dao -> dao.insert("flaky-dns", "http://nonexistent.invalid/hooks",
                WebhookSigner.newSecret(), List.of("*")));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));

        env.getWorkflowClient().newWorkflowStub(OutboxDeliveryWorkflow.class, WorkflowOptions.newBuilder()
                .setTaskQueue(QUEUE).setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId)).build())
                .deliver(outboxId);

        assertThat(lookups).hasValueGreaterThanOrEqualTo(3);
        List<String> errors = jdbi.withHandle(h -> h.createQuery(
                "SELECT error FROM delivery_attempts ORDER BY attempt").mapTo(String.class).list());
        assertThat(errors).hasSize(3).allSatisfy(error -> assertThat(error).contains("nonexistent.invalid"));
        Map<String, Object> deadLetter = jdbi.withHandle(h -> h.createQuery(
                "SELECT reason, attempts FROM dead_letters").mapToMap().one());
        assertThat(deadLetter).containsEntry("attempts", 3);
        assertThat((String) deadLetter.get("reason")).contains("gave up after 3 attempts");
    }
}
