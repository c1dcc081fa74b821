package dev.relaybox.activities.inbound;

import dev.relaybox.activities.statemachine.StateMachine;
import dev.relaybox.activities.statemachine.StateMachineConfig;
import dev.relaybox.activities.statemachine.TransitionConfig;
import dev.relaybox.workflows.WorkflowVisibility;
import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import dev.relaybox.workflows.inbound.InboxState;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/** The order machine from the design, and inbox rows written the way the intake writes them. */
final class InboxFixtures {
    static final String QUEUE = "inbound-test";
    static final String PARTNER = "shop";
    static final List<String> IN_ORDER = List.of("order.created", "order.paid", "order.shipped", "order.delivered");

    private InboxFixtures() {}

    static Map<String, StateMachine> orderMachines() {
        Map<String, TransitionConfig> transitions = new LinkedHashMap<>();
        transitions.put("order.created", new TransitionConfig(List.of("none"), "created", null));
        transitions.put("order.paid", new TransitionConfig(List.of("created"), "paid", "order.payment_confirmed"));
        transitions.put("order.shipped", new TransitionConfig(List.of("paid"), "shipped", "order.shipped"));
        transitions.put("order.delivered", new TransitionConfig(List.of("shipped"), "delivered", null));
        transitions.put("order.cancelled", new TransitionConfig(List.of("created", "paid"), "cancelled", null));
        StateMachineConfig order = new StateMachineConfig(
                List.of("created", "paid", "shipped", "delivered", "cancelled"), "created", transitions);
        return StateMachine.fromConfig(Map.of("order", order));
    }

    /** Stores one partner event as the intake does; empty when that partner already sent this event id. */
    static Optional<UUID> receive(
            Jdbi jdbi, String eventId, String eventType, String aggregateType, String aggregateId, String payload) {
        return jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, aggregate_id,
                                                   payload, signature_verified)
                        VALUES (:partner, :eventId, :eventType, :aggregateType, :aggregateId, CAST(:payload AS jsonb), true)
                        ON CONFLICT (partner_name, partner_event_id) DO NOTHING
                        RETURNING id""")
                .bind("partner", PARTNER)
                .bind("eventId", eventId)
                .bind("eventType", eventType)
                .bind("aggregateType", aggregateType)
                .bind("aggregateId", aggregateId)
                .bind("payload", payload)
                .mapTo(UUID.class)
                .findOne());
    }

    static InboxEventWorkflow workflow(WorkflowClient client, String eventId) {
        return client.newWorkflowStub(
                InboxEventWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(InboxEventWorkflow.workflowId(PARTNER, eventId))
                        .build());
    }

    /** Starts the row's workflow without waiting for it, as the dispatcher does. */
    static void start(WorkflowClient client, String eventId, UUID inboxId) {
        WorkflowClient.start(workflow(client, eventId)::process, inboxId, null);
    }

    /** Started as the dispatcher starts it: with what it is about in its search attributes. */
    static void startAsDispatched(
            WorkflowClient client, String eventId, UUID inboxId, String eventType, String aggregate) {
        InboxEventWorkflow workflow = client.newWorkflowStub(
                InboxEventWorkflow.class,
                WorkflowOptions.newBuilder()
                        .setTaskQueue(QUEUE)
                        .setWorkflowId(InboxEventWorkflow.workflowId(PARTNER, eventId))
                        .setTypedSearchAttributes(WorkflowVisibility.atStart(
                                "inbound", InboxState.RECEIVED.searchValue(), eventType, aggregate, PARTNER))
                        .build());
        WorkflowClient.start(workflow::process, inboxId, null);
    }
}
