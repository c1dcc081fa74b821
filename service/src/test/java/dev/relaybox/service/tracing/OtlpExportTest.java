package dev.relaybox.service.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.relaybox.activities.Traces;
import io.dropwizard.lifecycle.Managed;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tracing as an operator turns it on: only the OTEL_* variables, and spans arrive over the wire at an OTLP/HTTP
 * endpoint (a receiver on loopback that decodes each request with OpenTelemetry's own protobuf classes).
 */
class OtlpExportTest {
    final List<ExportTraceServiceRequest> received = new CopyOnWriteArrayList<>();
    HttpServer collector;

    @BeforeEach
    void startACollector() throws IOException {
        collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                received.add(ExportTraceServiceRequest.parseFrom(body.readAllBytes()));
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        GlobalOpenTelemetry.resetForTest();
    }

    @AfterEach
    void stopTheCollector() {
        collector.stop(0);
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void anOtlpEndpointInTheEnvironmentSendsRelayboxsSpansThere() throws Exception {
        Optional<Managed> sdk = Tracing.install(Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + collector.getAddress().getPort(),
                "OTEL_EXPORTER_OTLP_PROTOCOL",
                "http/protobuf"));
        assertThat(sdk).as("installed").isPresent();

        Traces.tracer().spanBuilder("webhook billing").startSpan().end();
        sdk.get().stop();

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        ResourceSpans exported = received.get(0).getResourceSpans(0);
        assertThat(exported.getResource().getAttributesList())
                .filteredOn(attribute -> attribute.getKey().equals("service.name"))
                .extracting(attribute -> attribute.getValue().getStringValue())
                .containsExactly("relaybox");
        assertThat(exported.getScopeSpansList())
                .flatExtracting(scope -> scope.getSpansList())
                .extracting(Span::getName)
                .containsExactly("webhook billing");
    }

    @Test
    void withoutTheVariablesNothingIsInstalledAndAnExplicitNoneWins() {
        assertThat(Tracing.install(Map.of())).isEmpty();
        assertThat(Tracing.install(Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x")))
                .isEmpty();
        assertThat(Tracing.install(Map.of("OTEL_SDK_DISABLED", "true", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://x")))
                .isEmpty();
        assertThat(Traces.traceparent(
                        Traces.tracer().spanBuilder("webhook billing").startSpan()))
                .as("no SDK: no span is recorded")
                .isNull();
    }
}
