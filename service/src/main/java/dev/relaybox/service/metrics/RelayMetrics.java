package dev.relaybox.service.metrics;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import dev.relaybox.service.inbound.IntakeMetrics;
import dev.relaybox.store.OverviewQueries;
import dev.relaybox.store.OverviewQueries.OpenWork;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Jdbi;

/**
 * Relaybox's metrics in one Prometheus registry: the intake's counts, the delivery timers and counters the
 * activities record, the open-work gauges read from the database, and the Temporal SDK's worker metrics.
 */
public final class RelayMetrics implements IntakeMetrics {
    private static final Duration SNAPSHOT_MAX_AGE = Duration.ofSeconds(5);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicReference<Snapshot> snapshot =
            new AtomicReference<>(new Snapshot(Instant.EPOCH, new OpenWork(0, 0, 0, 0)));
    private final OverviewQueries queries;
    private final EndpointHealthGauges endpointHealth;

    /** Open work as the database sees it, read at most every few seconds however often it is scraped. */
    private record Snapshot(Instant readAt, OpenWork work) {}

    public RelayMetrics(Jdbi jdbi) {
        this.queries = jdbi.onDemand(OverviewQueries.class);
        this.endpointHealth = new EndpointHealthGauges(jdbi, registry);
        Gauge.builder("relaybox.dead_letters.open", () -> snapshot().work().openDeadLetters())
                .description("dead letters not yet replayed or discarded")
                .register(registry);
        Gauge.builder("relaybox.inbox.deferred", () -> snapshot().work().deferredInbox())
                .description("inbox events waiting for their precondition")
                .register(registry);
        Gauge.builder("relaybox.dispatcher.lag.seconds", () -> snapshot().work().outboxLagSeconds())
                .tag("source", "outbox")
                .description("age of the oldest undispatched row")
                .register(registry);
        Gauge.builder("relaybox.dispatcher.lag.seconds", () -> snapshot().work().inboxLagSeconds())
                .tag("source", "inbox")
                .description("age of the oldest undispatched row")
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The scope the Temporal SDK reports worker and client metrics to. */
    public Scope temporalScope() {
        return new RootScopeBuilder()
                .reporter(new MicrometerClientStatsReporter(registry))
                .reportEvery(com.uber.m3.util.Duration.ofSeconds(10));
    }

    /** Serves the Prometheus text format. */
    public HttpServlet servlet() {
        return new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                endpointHealth.refresh();
                response.setContentType("text/plain; version=0.0.4; charset=utf-8");
                response.getWriter().write(registry.scrape());
            }
        };
    }

    @Override
    public void accepted(String partner) {
        registry.counter("relaybox.inbox.requests", "partner", partner, "result", "accepted", "reason", "")
                .increment();
    }

    @Override
    public void duplicate(String partner) {
        registry.counter("relaybox.inbox.requests", "partner", partner, "result", "duplicate", "reason", "")
                .increment();
    }

    @Override
    public void conflict(String partner) {
        registry.counter(
                        "relaybox.inbox.requests", "partner", partner, "result", "conflict", "reason", "different_body")
                .increment();
    }

    @Override
    public void rejected(String partner, String reason) {
        registry.counter("relaybox.inbox.requests", "partner", partner, "result", "rejected", "reason", reason)
                .increment();
    }

    private Snapshot snapshot() {
        Snapshot current = snapshot.get();
        if (Instant.now().isBefore(current.readAt().plus(SNAPSHOT_MAX_AGE))) {
            return current;
        }
        Snapshot fresh = new Snapshot(Instant.now(), queries.openWork());
        snapshot.set(fresh);
        return fresh;
    }
}
