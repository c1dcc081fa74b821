package dev.relaybox.activities.inbound;

import dev.relaybox.activities.Traces;
import dev.relaybox.store.InboxStore.InboxRow;
import dev.relaybox.workflows.inbound.InboxOutcome;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;

/**
 * An inbound event's decisions as spans, children of the partner's request (the row's {@code traceparent}): one per
 * decision run, which a deferral marks with an event, and whose context the outbox events it emits continue.
 */
final class InboundSpans {
    static final AttributeKey<String> PARTNER = AttributeKey.stringKey("relaybox.partner");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("relaybox.outcome");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("reason");

    private InboundSpans() {}

    static Span decision(InboxRow row) {
        return Traces.tracer()
                .spanBuilder("inbound " + row.eventType())
                .setParent(Traces.parent(row.traceparent()))
                .setAttribute(PARTNER, row.partnerName())
                .setAttribute("relaybox.partner_event_id", row.partnerEventId())
                .setAttribute("relaybox.inbox_id", row.id().toString())
                .setAttribute("relaybox.attempt", (long) row.attempts() + 1)
                .startSpan();
    }

    static void decided(Span span, InboxOutcome outcome) {
        span.setAttribute(OUTCOME, outcome.outcome().name().toLowerCase());
        switch (outcome.outcome()) {
            case DEFERRED -> span.addEvent("deferred", Attributes.of(REASON, outcome.reason()));
            case REJECTED -> {
                span.addEvent("dead_letter", Attributes.of(REASON, outcome.reason()));
                span.setStatus(StatusCode.ERROR, outcome.reason());
            }
            default -> {}
        }
        span.end();
    }
}
