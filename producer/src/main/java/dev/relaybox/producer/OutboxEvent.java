package dev.relaybox.producer;

import java.util.Objects;

/**
 * The intent to notify subscribers: what happened to which aggregate, with the JSON payload to send. An event with a
 * {@code tenant} (the key of one of the operator's customers) goes only to that tenant's endpoints; one without goes
 * to the endpoints that belong to no tenant.
 */
public record OutboxEvent(
        String eventType, String aggregateType, String aggregateId, String payloadJson, String tenant) {
    public OutboxEvent {
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(payloadJson, "payloadJson");
    }

    /** An event for the endpoints that belong to no tenant. */
    public OutboxEvent(String eventType, String aggregateType, String aggregateId, String payloadJson) {
        this(eventType, aggregateType, aggregateId, payloadJson, null);
    }

    /** The same event for {@code tenant}'s endpoints. */
    public OutboxEvent forTenant(String tenant) {
        return new OutboxEvent(eventType, aggregateType, aggregateId, payloadJson, tenant);
    }
}
