package dev.relaybox.activities.outbound;

import dev.relaybox.activities.Traces;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.OutboxDeliveryWorkflow;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A delivery's spans, children of the span that wrote its event (the row's {@code traceparent}): one per HTTP attempt,
 * whose context the receiver gets as its {@code traceparent}, and one for a dead letter.
 */
final class DeliverySpans {
    static final AttributeKey<String> ENDPOINT = AttributeKey.stringKey("relaybox.endpoint");
    static final AttributeKey<String> DELIVERY = AttributeKey.stringKey("relaybox.delivery_id");
    static final AttributeKey<String> WORKFLOW = AttributeKey.stringKey("relaybox.workflow_id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("relaybox.attempt");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("relaybox.outcome");
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");

    private DeliverySpans() {}

    static Span attempt(DeliveryStore.AttemptContext ctx, int attempt) {
        return Traces.tracer()
                .spanBuilder("webhook " + ctx.endpointName())
                .setParent(Traces.parent(ctx.traceparent()))
                .setSpanKind(SpanKind.CLIENT)
                .setAllAttributes(delivery(ctx.deliveryId(), ctx.outboxId(), ctx.endpointName()))
                .setAttribute(ATTEMPT, (long) attempt)
                .setAttribute("http.request.method", "POST")
                .startSpan();
    }

    /** The request's headers with the attempt's {@code traceparent}, which replaces any the endpoint configured. */
    static Map<String, String> headers(Map<String, String> headers, Span attempt) {
        String traceparent = Traces.traceparent(attempt);
        if (traceparent == null) {
            return headers;
        }
        Map<String, String> traced = new LinkedHashMap<>(headers);
        traced.keySet().removeIf(Traces.TRACEPARENT::equalsIgnoreCase);
        traced.put(Traces.TRACEPARENT, traceparent);
        return traced;
    }

    static void answered(Span attempt, AttemptResult result) {
        attempt.setAttribute(OUTCOME, result.outcome().name().toLowerCase());
        if (result.statusCode() > 0) {
            attempt.setAttribute(STATUS, (long) result.statusCode());
        }
        if (result.outcome() != AttemptResult.Outcome.DELIVERED) {
            attempt.setStatus(StatusCode.ERROR, result.summary());
        }
        attempt.end();
    }

    static void deadLettered(DeliveryStore.DeadLetterContext ctx, UUID deliveryId, String reason) {
        Span span = Traces.tracer()
                .spanBuilder("dead-letter " + ctx.endpointName())
                .setParent(Traces.parent(ctx.traceparent()))
                .setAllAttributes(delivery(deliveryId, ctx.outboxId(), ctx.endpointName()))
                .startSpan();
        span.addEvent(
                "dead_letter", Attributes.of(AttributeKey.stringKey("reason"), reason, ATTEMPT, (long) ctx.attempts()));
        span.setStatus(StatusCode.ERROR, reason);
        span.end();
    }

    private static Attributes delivery(UUID deliveryId, UUID outboxId, String endpoint) {
        return Attributes.of(
                DELIVERY,
                deliveryId.toString(),
                WORKFLOW,
                OutboxDeliveryWorkflow.workflowId(outboxId),
                ENDPOINT,
                endpoint);
    }
}
