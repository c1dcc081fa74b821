package dev.relaybox.activities.outbound;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One webhook as a broker message, whatever the broker: the body an HTTP request would carry and, as message
 * headers (attributes on SQS), the Standard Webhooks headers a consumer verifies it with, the event's type and tenant,
 * the endpoint's static headers and {@code traceparent}. {@code key} is the event's aggregate id: a Kafka record's
 * key, an SQS FIFO message's group.
 */
record BrokerMessage(String webhookId, String key, byte[] body, Instant timestamp, Map<String, String> headers) {
    static BrokerMessage of(
            String webhookId,
            String aggregateId,
            String eventType,
            String tenant,
            byte[] body,
            List<String> secrets,
            Instant now,
            Map<String, String> endpointHeaders) {
        long timestamp = now.getEpochSecond();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("webhook-id", webhookId);
        headers.put("webhook-timestamp", Long.toString(timestamp));
        headers.put("webhook-signature", WebhookSigner.signatureHeader(secrets, webhookId, timestamp, body));
        headers.put("webhook-event-type", eventType);
        if (tenant != null) {
            headers.put("webhook-tenant", tenant);
        }
        endpointHeaders.forEach(headers::putIfAbsent);
        return new BrokerMessage(webhookId, aggregateId, body, now, Map.copyOf(headers));
    }
}
