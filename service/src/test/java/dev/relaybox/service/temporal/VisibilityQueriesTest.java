package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxOnRealTemporal;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's queries for stuck events, run as an operator runs them ({@code ListWorkflowExecutions}) against the
 * real Temporal server, over workflows Relaybox started through its normal paths: signed partner webhooks, {@code
 * POST /outbox}, endpoints on a real receiver. Each query must find exactly the workflows it describes.
 */
class VisibilityQueriesTest {
    private static final TestReceiver RECEIVER = new TestReceiver();
    private static RelayboxOnRealTemporal relaybox;
    private static WorkflowClient client;

    /** Workflow ids by what the test made them, e.g. "deferred paid 42 from shop". */
    private static final Map<String, String> WORKFLOWS = new LinkedHashMap<>();
    /** Partner event ids of the inbound ones, by the same names. */
    private static final Map<String, String> EVENT_IDS = new LinkedHashMap<>();

    @BeforeAll
    static void startRelayboxAndMakeEveryKindOfStuckEvent() {
        relaybox = RelayboxOnRealTemporal.start(
                "visibility",
                UnaryOperator.identity(),
                Map.of(
                        // Three quick attempts, then an hour's wait: "retrying" with 3 attempts while running.
                        "delivery.retryDelays", "1s,1s,1h",
                        "inbox.recheckInterval", "1h"));
        client = relaybox.client();

        RECEIVER.script("/billing", Reply.of(503));
        RECEIVER.script("/erp", Reply.of(503));
        RECEIVER.script("/crm", Reply.retryAfter(503, "3600"));
        RECEIVER.script("/warehouse", Reply.of(400));
        RECEIVER.script("/ledger", Reply.of(503), Reply.of(503), Reply.of(200));
        endpoint("billing", "/billing", "invoice.*");
        endpoint("erp", "/erp", "shipment.*");
        endpoint("crm", "/crm", "customer.*");
        endpoint("warehouse", "/warehouse", "order.shipped", "order.returned");
        endpoint("ledger", "/ledger", "payment.*");

        // Inbound. Paid or shipped before created: deferred, waiting for the missing step.
        inbound("shop", "deferred paid 42 from shop", "order.paid", "42");
        inbound("market", "deferred paid 42 from market", "order.paid", "42");
        inbound("shop", "deferred paid 43 from shop", "order.paid", "43");
        inbound("market", "deferred paid 45 from market", "order.paid", "45");
        inbound("shop", "deferred shipped 44 from shop", "order.shipped", "44");
        // Created, cancelled, then shipped: a shipment can never follow a cancellation, so it is dead-lettered.
        inbound("shop", "processed created 50", "order.created", "50");
        awaitInboxStatus("processed created 50", "PROCESSED");
        inbound("shop", "processed cancelled 50", "order.cancelled", "50");
        awaitInboxStatus("processed cancelled 50", "PROCESSED");
        inbound("shop", "dead-lettered shipped 50", "order.shipped", "50");

        // Outbound.
        outbound("retrying invoice 42 to billing", "invoice.issued", "order", "42");
        outbound("retrying invoice 63 to billing", "invoice.voided", "order", "63");
        outbound("retrying shipment 64 to erp", "shipment.delayed", "order", "64");
        outbound("retrying customer 7 to crm, attempt 1", "customer.updated", "customer", "7");
        outbound("dead-lettered shipped 60", "order.shipped", "order", "60");
        outbound("dead-lettered returned 61", "order.returned", "order", "61");
        outbound("delivered payment 62 on attempt 3", "payment.captured", "order", "62");
    }

    @AfterAll
    static void stop() {
        if (relaybox != null) {
            relaybox.close();
        }
        RECEIVER.close();
    }

    @Test
    void deferredEventsOfOneAggregate() {
        assertFinds(
                "RelayStatus=\"deferred\" AND RelayAggregate=\"order:42\"",
                "deferred paid 42 from shop",
                "deferred paid 42 from market");
    }

    @Test
    void retryingDeliveriesToOneEndpoint() {
        assertFinds(
                "RelayStatus=\"retrying\" AND RelayEndpoints=\"billing\"",
                "retrying invoice 42 to billing",
                "retrying invoice 63 to billing");
    }

    @Test
    void deferredEventsOfOnePartner() {
        assertFinds(
                "RelayStatus=\"deferred\" AND RelayPeer=\"shop\"",
                "deferred paid 42 from shop",
                "deferred paid 43 from shop",
                "deferred shipped 44 from shop");
    }

    @Test
    void deadLettersOfOneEventTypeInBothDirections() {
        assertFinds(
                "RelayStatus=\"dead_lettered\" AND RelayEventType=\"order.shipped\"",
                "dead-lettered shipped 50",
                "dead-lettered shipped 60");
    }

    @Test
    void runningOutboundEventsWithThreeAttemptsOrMore() {
        assertFinds(
                "RelayDirection=\"outbound\" AND RelayAttempts >= 3 AND ExecutionStatus=\"Running\"",
                "retrying invoice 42 to billing",
                "retrying invoice 63 to billing",
                "retrying shipment 64 to erp");
    }

    /** Visibility is eventually consistent: the query's answer settles on exactly these workflows. */
    private static void assertFinds(String query, String... expected) {
        // Only once every workflow has reached the state it is made for (the ledger's third attempt, the billing
        // retries' third) is "and no others" meaningful.
        awaitEveryWorkflowSettled();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(found(query)).as(query).containsExactlyInAnyOrder(expected));
    }

    /** What the query finds, named as the test named the workflows (an unknown id as itself). */
    private static List<String> found(String query) {
        Map<String, String> names =
                WORKFLOWS.entrySet().stream().collect(Collectors.toMap(Map.Entry::getValue, Map.Entry::getKey));
        return client.listExecutions(query)
                .map(execution -> execution.getExecution().getWorkflowId())
                .map(id -> names.getOrDefault(id, id))
                .toList();
    }

    private static void awaitEveryWorkflowSettled() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/ledger").size() == 3
                        && RECEIVER.received("/billing").size() == 6
                        && RECEIVER.received("/erp").size() == 3
                        && deliveryStatuses().equals(Map.of("RETRYING", 4L, "DEAD_LETTERED", 2L, "DELIVERED", 1L)));
    }

    private static Map<String, Long> deliveryStatuses() {
        return relaybox
                .api()
                .jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT status, count(*) FROM deliveries WHERE attempts >= 1 GROUP BY status")
                        .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getLong(2)))
                        .list())
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static void endpoint(String name, String path, String... eventTypes) {
        relaybox.createEndpoint(name, RECEIVER.url(path), eventTypes);
    }

    private static void inbound(String partner, String name, String type, String orderId) {
        String eventId = "evt-" + UUID.randomUUID();
        Answer answer = relaybox.orderEvent(partner, eventId, type, orderId);
        assertThat(answer.status()).as("%s: %s", name, answer.body()).isEqualTo(200);
        WORKFLOWS.put(name, InboxEventWorkflow.workflowId(partner, eventId));
        EVENT_IDS.put(name, eventId);
    }

    private static void outbound(String name, String eventType, String aggregateType, String aggregateId) {
        Answer answer = relaybox.producer(
                "POST",
                "/outbox",
                Map.of(
                        "eventType", eventType,
                        "aggregateType", aggregateType,
                        "aggregateId", aggregateId,
                        "payload", Map.of("id", aggregateId)));
        assertThat(answer.status()).as("%s: %s", name, answer.body()).isEqualTo(202);
        WORKFLOWS.put(name, OutboxDeliveryWorkflow.workflowId(UUID.fromString(answer.text("id"))));
    }

    private static void awaitInboxStatus(String name, String status) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> status.equals(relaybox.api()
                        .jdbi()
                        .withHandle(h -> h.createQuery("SELECT status FROM webhook_inbox WHERE partner_event_id = :id")
                                .bind("id", EVENT_IDS.get(name))
                                .mapTo(String.class)
                                .findOne()
                                .orElse(""))));
    }
}
