package dev.relaybox.producer;

import java.util.Objects;

/** The intent to notify subscribers: what happened to which aggregate, with the JSON payload to send. */
public record OutboxEvent(String eventType, String aggregateType, String aggregateId, String payloadJson) {
    public OutboxEvent {
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(payloadJson, "payloadJson");
    }
}
