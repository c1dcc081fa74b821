package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.FaultFigures;
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
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A name that does not resolve is a DNS hiccup until the schedule says otherwise: retried, not dead-lettered
 * at once, and delivered once the name resolves again. The resolver is scripted, so no lookup leaves this machine.
 */
class DnsFailureTest {
    static final String QUEUE = "dns-test";

    final Jdbi jdbi = TestDatabase.fresh();
    final AtomicInteger lookups = new AtomicInteger();
    TestWorkflowEnvironment env;
    TestReceiver receiver;

    /** Starts the workers with every lookup going through {@code resolver}, counted. */
    private void start(HostResolver resolver, String allowedPrivateNetworks, List<Duration> retryDelays) {
        HostResolver counted = host -> {
            lookups.incrementAndGet();
            return resolver.resolve(host);
        };
        DeliverySettings settings = DeliverySettings.defaults()
                .withSchedule(new DeliverySchedule(retryDelays, 0, Duration.ofMinutes(10)))
                .withAllowedPrivateNetworks(allowedPrivateNetworks);
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults()
                                .withDelivery(settings)
                                .withResolver(counted),
                        DeadLetters.loggingOnly(),
                        new SimpleMeterRegistry()));
    }

    @AfterEach
    void stop() {
        if (env != null) {
            env.close();
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    @Test
    void unresolvableHostIsRetriedOnTheScheduleNotDeadLetteredAtOnce() {
        start(
                host -> {
                    throw new UnknownHostException(host + ": Temporary failure in name resolution");
                },
                "",
                List.of(Duration.ofMinutes(1), Duration.ofMinutes(5)));
        jdbi.useExtension(
                EndpointStore.class,
                dao -> dao.insert(
                        "flaky-dns", "http://nonexistent.invalid/hooks", WebhookSigner.newSecret(), List.of("*")));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "42", "{}")));

        env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build())
                .deliver(outboxId, null);

        assertThat(lookups).hasValueGreaterThanOrEqualTo(3);
        List<String> errors = jdbi.withHandle(h -> h.createQuery("SELECT error FROM delivery_attempts ORDER BY attempt")
                .mapTo(String.class)
                .list());
        assertThat(errors).hasSize(3).allSatisfy(error -> assertThat(error).contains("nonexistent.invalid"));
        Map<String, Object> deadLetter = jdbi.withHandle(h -> h.createQuery("SELECT reason, attempts FROM dead_letters")
                .mapToMap()
                .one());
        assertThat(deadLetter).containsEntry("attempts", 3);
        assertThat((String) deadLetter.get("reason")).contains("gave up after 3 attempts");
        // Rightly dead-lettered only once every attempt of the schedule was spent on it.
        FaultFigures.count(
                        "DNS never resolves again: retried on the schedule, then dead-lettered",
                        getClass(),
                        List.of(FaultFigures.delivery(outboxId, "flaky-dns")),
                        List.of(),
                        FaultFigures.deadLetters(jdbi),
                        spentTheirSchedule(3))
                .print()
                .assertTargets();
    }

    @Test
    void dnsOutageThatPassesDeliversEveryDeliveryOnceAndDeadLettersNothing() {
        // Each name fails its first two lookups, as during a resolver outage, then resolves to the receiver.
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        start(
                host -> {
                    if (failures.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet() <= 2) {
                        throw new UnknownHostException(host + ": Temporary failure in name resolution");
                    }
                    return List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
                },
                "127.0.0.0/8",
                List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15)));
        receiver = new TestReceiver();
        List<String> names = List.of("alpha", "beta", "gamma");
        int port = URI.create(receiver.url("/")).getPort();
        jdbi.useExtension(
                EndpointStore.class,
                dao -> names.forEach(name -> dao.insert(
                        name,
                        "http://" + name + ".dns-drill.test:" + port + "/" + name,
                        WebhookSigner.newSecret(),
                        List.of("*"))));
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "7", "{}")));

        env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build())
                .deliver(outboxId, null);

        assertThat(failures).hasSize(names.size());
        List<String> in = names.stream()
                .map(name -> FaultFigures.delivery(outboxId, name))
                .toList();
        List<String> seen = receiver.received().stream()
                .filter(r -> r.status() == 200)
                .map(r -> FaultFigures.delivery(r.header("webhook-id"), r.path().substring(1)))
                .toList();
        FaultFigures.count(
                        "DNS failing for each endpoint's first two lookups, then resolving",
                        getClass(),
                        in,
                        seen,
                        FaultFigures.deadLetters(jdbi))
                .print()
                .assertTargets();
    }

    /** The dead-lettered deliveries that had made every one of the schedule's {@code attempts}. */
    private List<String> spentTheirSchedule(int attempts) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT v.outbox_id::text || ' to ' || e.name FROM dead_letters d
                          JOIN deliveries v ON v.id = d.reference JOIN endpoints e ON e.id = v.endpoint_id
                         WHERE d.attempts >= :attempts""")
                .bind("attempts", attempts)
                .mapTo(String.class)
                .list());
    }
}
