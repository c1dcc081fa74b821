package dev.relaybox.service.metrics;

import dev.relaybox.activities.outbound.EndpointTags;
import dev.relaybox.store.EndpointHealthStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;

/**
 * Per-endpoint health as Prometheus gauges labelled {@code endpoint} (its id) and {@code tenant} ({@link
 * EndpointTags}): circuit state, failure streak, success ratio and p50/p99 latency over the last hour, last success,
 * requests in flight and deliveries waiting; {@code relaybox_endpoint_info} is 1 per endpoint with its {@code name},
 * for dashboards to join on. Endpoints come and go, so the rows are read from the database when scraped (at most
 * every few seconds).
 */
final class EndpointHealthGauges {
    private static final Duration MAX_AGE = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final MultiGauge circuitOpen;
    private final MultiGauge consecutiveFailures;
    private final MultiGauge successRatio;
    private final MultiGauge latency;
    private final MultiGauge lastSuccess;
    private final MultiGauge inFlight;
    private final MultiGauge waiting;
    private final MultiGauge info;
    private Instant readAt = Instant.EPOCH;

    EndpointHealthGauges(Jdbi jdbi, MeterRegistry registry) {
        this.jdbi = jdbi;
        circuitOpen = gauge(
                registry,
                "relaybox.endpoint.circuit.open",
                "1 while the endpoint's circuit is open (deliveries wait for a probe)");
        consecutiveFailures = gauge(registry, "relaybox.endpoint.consecutive.failures", "failed attempts in a row");
        successRatio =
                gauge(registry, "relaybox.endpoint.success.ratio", "share of attempts answered 2xx over the last hour");
        latency =
                gauge(registry, "relaybox.endpoint.latency.seconds", "attempt latency over the last hour, by quantile");
        lastSuccess = gauge(
                registry,
                "relaybox.endpoint.last.success.timestamp.seconds",
                "when the endpoint last accepted a delivery");
        inFlight = gauge(registry, "relaybox.endpoint.in.flight", "requests holding a maxInFlight slot");
        waiting = gauge(
                registry,
                "relaybox.endpoint.waiting",
                "deliveries waiting for the circuit, an earlier event or a slot");
        info = gauge(registry, "relaybox.endpoint.info", "1 per endpoint, with its name");
    }

    synchronized void refresh() {
        Instant now = Instant.now();
        if (now.isBefore(readAt.plus(MAX_AGE))) {
            return;
        }
        readAt = now;
        List<EndpointHealthStore.Health> rows =
                jdbi.withExtension(EndpointHealthStore.class, dao -> dao.health(now.minus(Duration.ofHours(1))));
        register(circuitOpen, rows, h -> h.circuit().open() ? 1 : 0);
        register(consecutiveFailures, rows, EndpointHealthStore.Health::consecutiveFailures);
        register(
                successRatio,
                rows.stream().filter(h -> h.successRate() != null).toList(),
                EndpointHealthStore.Health::successRate);
        register(
                lastSuccess,
                rows.stream().filter(h -> h.lastSuccessAt() != null).toList(),
                h -> h.lastSuccessAt().toEpochMilli() / 1000.0);
        register(inFlight, rows, EndpointHealthStore.Health::inFlight);
        info.register(
                rows.stream()
                        .map(h -> MultiGauge.Row.of(tags(h).and("name", h.endpointName()), 1.0))
                        .toList(),
                true);
        register(waiting, rows, EndpointHealthStore.Health::waiting);
        List<EndpointHealthStore.Health> measured =
                rows.stream().filter(h -> h.p50LatencyMs() != null).toList();
        latency.register(
                Stream.concat(
                                measured.stream()
                                        .map(h -> MultiGauge.Row.of(
                                                tags(h).and("quantile", "0.5"), h.p50LatencyMs() / 1000.0)),
                                measured.stream()
                                        .map(h -> MultiGauge.Row.of(
                                                tags(h).and("quantile", "0.99"), h.p99LatencyMs() / 1000.0)))
                        .toList(),
                true);
    }

    private static Tags tags(EndpointHealthStore.Health h) {
        return EndpointTags.of(h.endpointId(), h.tenant());
    }

    private static MultiGauge gauge(MeterRegistry registry, String name, String description) {
        return MultiGauge.builder(name).description(description).register(registry);
    }

    private static void register(
            MultiGauge gauge,
            List<EndpointHealthStore.Health> rows,
            ToDoubleFunction<EndpointHealthStore.Health> value) {
        gauge.register(
                rows.stream()
                        .map(h -> MultiGauge.Row.of(tags(h), value.applyAsDouble(h)))
                        .toList(),
                true);
    }
}
