package dev.relaybox.producer;

import java.util.Objects;

/**
 * The intent to notify subscribers: what happened to which aggregate, with the JSON payload to send. An event with a
 * {@code tenant} (the key of one of the operator's customers) goes only to that tenant's endpoints; one without goes
 * to the endpoints that belong to no tenant. A {@code traceparent} (the W3C trace context of the producer's current
 * span) is stored with the row, so the spans of its deliveries join the producer's trace.
 */
public record OutboxEvent(
        String eventType,
        String aggregateType,
        String aggregateId,
        String payloadJson,
        String tenant,
        String traceparent) {
    public OutboxEvent {
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(payloadJson, "payloadJson");
    }

    /** An event for the endpoints that belong to no tenant. */
    public OutboxEvent(String eventType, String aggregateType, String aggregateId, String payloadJson) {
        this(eventType, aggregateType, aggregateId, payloadJson, null, null);
    }

    /** An event for {@code tenant}'s endpoints, or for those of no tenant when it is null. */
    public OutboxEvent(String eventType, String aggregateType, String aggregateId, String payloadJson, String tenant) {
        this(eventType, aggregateType, aggregateId, payloadJson, tenant, null);
    }

    /** The same event for {@code tenant}'s endpoints. */
    public OutboxEvent forTenant(String tenant) {
        return new OutboxEvent(eventType, aggregateType, aggregateId, payloadJson, tenant, traceparent);
    }

    /** The same event in the trace this {@code traceparent} header value names (null: in none). */
    public OutboxEvent inTrace(String traceparent) {
        return new OutboxEvent(eventType, aggregateType, aggregateId, payloadJson, tenant, traceparent);
    }
}
