package dev.relaybox.service.metrics;

import dev.relaybox.activities.outbound.EndpointControlDao;
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
 * Per-endpoint health as Prometheus gauges labelled {@code endpoint}: circuit state, failure streak, success
 * ratio and p50/p99 latency over the last hour, last success, requests in flight and deliveries waiting.
 * Endpoints come and go, so the rows are read from the database when scraped (at most every few seconds).
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
    private Instant readAt = Instant.EPOCH;

    EndpointHealthGauges(Jdbi jdbi, MeterRegistry registry) {
        this.jdbi = jdbi;
        circuitOpen = MultiGauge.builder("relaybox.endpoint.circuit.open")
                .description("1 while the endpoint's circuit is open (deliveries wait for a probe)").register(registry);
        consecutiveFailures = MultiGauge.builder("relaybox.endpoint.consecutive.failures")
                .description("failed attempts in a row").register(registry);
        successRatio = MultiGauge.builder("relaybox.endpoint.success.ratio")
                .description("share of attempts answered 2xx over the last hour").register(registry);
        latency = MultiGauge.builder("relaybox.endpoint.latency.seconds")
                .description("attempt latency over the last hour, by quantile").register(registry);
        lastSuccess = MultiGauge.builder("relaybox.endpoint.last.success.timestamp.seconds")
                .description("when the endpoint last accepted a delivery").register(registry);
        inFlight = MultiGauge.builder("relaybox.endpoint.in.flight")
                .description("requests holding a maxInFlight slot").register(registry);
        waiting = MultiGauge.builder("relaybox.endpoint.waiting")
                .description("deliveries waiting for the circuit, an earlier event or a slot").register(registry);
    }

    synchronized void refresh() {
        Instant now = Instant.now();
        if (now.isBefore(readAt.plus(MAX_AGE))) {
            return;
        }
        readAt = now;
        List<EndpointControlDao.Health> rows = jdbi.withExtension(EndpointControlDao.class,
                dao -> dao.health(null, now.minus(Duration.ofHours(1))));
        register(circuitOpen, rows, h -> "OPEN".equals(h.circuit()) ? 1 : 0);
        register(consecutiveFailures, rows, EndpointControlDao.Health::consecutiveFailures);
        register(successRatio, rows.stream().filter(h -> h.successRate() != null).toList(),
                EndpointControlDao.Health::successRate);
        register(lastSuccess, rows.stream().filter(h -> h.lastSuccessAt() != null).toList(),
                h -> h.lastSuccessAt().toEpochMilli() / 1000.0);
        register(inFlight, rows, EndpointControlDao.Health::inFlight);
        register(waiting, rows, EndpointControlDao.Health::waiting);
        List<EndpointControlDao.Health> measured = rows.stream().filter(h -> h.p50LatencyMs() != null).toList();
        latency.register(Stream.concat(
                measured.stream().map(h -> MultiGauge.Row.of(Tags.of("endpoint", h.endpointName(), "quantile", "0.5"),
                        h.p50LatencyMs() / 1000.0)),
                measured.stream().map(h -> MultiGauge.Row.of(Tags.of("endpoint", h.endpointName(), "quantile", "0.99"),
                        h.p99LatencyMs() / 1000.0))).toList(), true);
    }

    private static void register(MultiGauge gauge, List<EndpointControlDao.Health> rows,
            ToDoubleFunction<EndpointControlDao.Health> value) {
        gauge.register(rows.stream()
                .map(h -> MultiGauge.Row.of(Tags.of("endpoint", h.endpointName()), value.applyAsDouble(h)))
                .toList(), true);
    }
}
