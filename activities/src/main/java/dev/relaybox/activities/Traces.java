package dev.relaybox.activities;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Relaybox's spans, and the W3C {@code traceparent} that carries a trace across what no thread spans: a row stored
 * now and delivered later, in another process. Without an installed SDK the tracer records nothing, but a span still
 * carries its parent's context, so a producer's {@code traceparent} reaches the receiver unchanged.
 */
public final class Traces {
    public static final String TRACEPARENT = "traceparent";
    private static final String SCOPE = "dev.relaybox";
    private static final TextMapGetter<String> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String traceparent) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String traceparent, String key) {
            return TRACEPARENT.equals(key) ? traceparent : null;
        }
    };

    private Traces() {}

    public static Tracer tracer() {
        return GlobalOpenTelemetry.getTracer(SCOPE);
    }

    /** The context a stored or received {@code traceparent} names; a new trace's when it is null or malformed. */
    public static Context parent(String traceparent) {
        return traceparent == null
                ? Context.root()
                : W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, STORED);
    }

    /** The {@code traceparent} naming this span, or null when there is no trace to continue. */
    public static String traceparent(Span span) {
        if (!span.getSpanContext().isValid()) {
            return null;
        }
        Map<String, String> carrier = new HashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), carrier, Map::put);
        return carrier.get(TRACEPARENT);
    }
}
