package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.TestEngine;
import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.activities.workers.RelayboxWorkers;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TenantStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tenant the operator let onto a private network is delivered to there, but never reads what answers: its attempts
 * keep the status and drop the reply, which the operator's own endpoint on the same receiver keeps.
 */
class TenantRepliesTest {
    static final String QUEUE = "tenant-replies-test";

    final Jdbi jdbi = TestDatabase.fresh();
    final TestReceiver receiver = new TestReceiver();
    TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        List<AddressBlock> loopback = AddressBlock.parseList("127.0.0.0/8", AddressPolicy.TENANT_SETTING);
        DeliverySettings settings = DeliverySettings.defaults()
                .withAddresses(new AddressPolicy(loopback, OwnListeners.loopbackOnly()).withTenantNetworks(loopback))
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        env = TestEngine.start(
                QUEUE,
                RelayboxWorkers.build(
                        jdbi,
                        RelayboxWorkers.Settings.defaults().withDelivery(settings),
                        DeadLetters.loggingOnly(),
                        metrics));
    }

    @AfterEach
    void stop() {
        env.close();
        receiver.close();
    }

    @Test
    void aTenantEndpointOnAPrivateAddressKeepsTheStatusButNotTheReply() {
        receiver.answer(request -> new Reply(200, Map.of(), "internal: admin console v3", Duration.ZERO));
        jdbi.useExtension(TenantStore.class, tenants -> tenants.insert("acme", "Acme Inc.", "{}", "{}"));
        jdbi.useExtension(EndpointStore.class, endpoints -> {
            endpoints.insert("acme", "acme-hooks", receiver.url("/acme"), WebhookSigner.newSecret(), List.of("*"));
            endpoints.insert("own-hooks", receiver.url("/own"), WebhookSigner.newSecret(), List.of("*"));
        });

        deliver(new OutboxEvent("order.paid", "order", "42", "{}").forTenant("acme"));
        deliver(new OutboxEvent("order.paid", "order", "43", "{}"));

        assertThat(receiver.received("/acme")).hasSize(1);
        assertThat(receiver.received("/own")).hasSize(1);
        Map<String, String> replies = jdbi.withHandle(h -> h
                .createQuery("""
                        SELECT e.name, a.status_code, a.response_excerpt FROM delivery_attempts a
                          JOIN deliveries d ON d.id = a.delivery_id JOIN endpoints e ON e.id = d.endpoint_id""")
                .map((rs, ctx) -> Map.entry(
                        rs.getString("name"), rs.getInt("status_code") + " " + rs.getString("response_excerpt")))
                .list()
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        assertThat(replies)
                .containsEntry("acme-hooks", "200 null")
                .containsEntry("own-hooks", "200 internal: admin console v3");
    }

    private void deliver(OutboxEvent event) {
        UUID outboxId = jdbi.inTransaction(h -> Outbox.enqueue(h, event));
        env.getWorkflowClient()
                .newWorkflowStub(
                        OutboxDeliveryWorkflow.class,
                        WorkflowOptions.newBuilder()
                                .setTaskQueue(QUEUE)
                                .setWorkflowId(OutboxDeliveryWorkflow.workflowId(outboxId))
                                .build())
                .deliver(outboxId, null);
    }
}
