package dev.relaybox.bench;

import com.sun.net.httpserver.HttpServer;
import dev.relaybox.producer.Outbox;
import dev.relaybox.service.tracing.Tracing;
import io.dropwizard.lifecycle.Managed;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What tracing costs: outbound deliveries a second with tracing off and on, alternating in one Relaybox. On, every
 * event carries a producer's traceparent and the SDK exports each attempt's span over OTLP/HTTP to a collector on
 * loopback that reads and drops what it gets.
 */
final class TracingScenario {
    static final String TITLE = "Tracing overhead";

    private final Context ctx;

    TracingScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        Receiver.Tally tally = ctx.receiver.reset(OutboundScenario.PATH, 200);
        String prefix = ctx.runId + "-trace";
        AtomicLong exported = new AtomicLong();
        HttpServer collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                exported.addAndGet(body.readAllBytes().length);
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        try {
            deliveries(o.warmup, prefix + "w0", tally, null);
            deliveries(o.warmup, prefix + "w1", tally, collector);
            ctx.settle();
            // Off, on, off, on: drift on a shared machine touches both alike.
            double[] off = new double[2];
            double[] on = new double[2];
            String[] cpu = new String[4];
            for (int round = 0; round < 2; round++) {
                Cpu.Snapshot before = Cpu.now();
                off[round] =
                        deliveries(o.n, prefix + "off" + round, tally, null).perSecond();
                cpu[2 * round] = Cpu.between(before, Cpu.now());
                ctx.settle();
                before = Cpu.now();
                on[round] =
                        deliveries(o.n, prefix + "on" + round, tally, collector).perSecond();
                cpu[2 * round + 1] = Cpu.between(before, Cpu.now());
                ctx.settle();
            }
            double offRate = (off[0] + off[1]) / 2;
            double onRate = (on[0] + on[1]) / 2;
            ctx.workflowsRun += 2 * o.warmup + 4 * o.n;
            Report r = ctx.report;
            r.metric(TITLE, "delivered/s, tracing on", onRate, offRate, "the same runs with tracing off");
            r.fact(TITLE, "lost / duplicate deliveries", "0 / " + tally.duplicates.get(), "0 / 0");
            r.note(
                    TITLE,
                    String.format(
                            Locale.ROOT,
                            "%d outbox rows per run, off and on alternating twice (off %.1f and %.1f/s, on %.1f and"
                                    + " %.1f/s); on, each row carries a producer's traceparent and every attempt's"
                                    + " span goes over OTLP/HTTP (batch processor, the SDK's defaults) to a"
                                    + " loopback collector, %,d bytes in all. CPU: off %s; on %s; off %s; on %s.",
                            o.n,
                            off[0],
                            off[1],
                            on[0],
                            on[1],
                            exported.get(),
                            cpu[0],
                            cpu[1],
                            cpu[2],
                            cpu[3]));
        } finally {
            collector.stop(0);
        }
    }

    /** With a collector: tracing on, exporting there, and every row in a producer's trace; without: off. */
    private Run deliveries(int count, String prefix, Receiver.Tally tally, HttpServer collector) throws Exception {
        Managed sdk = null;
        if (collector != null) {
            GlobalOpenTelemetry.resetForTest();
            sdk = Tracing.install(Map.of(
                            "OTEL_EXPORTER_OTLP_ENDPOINT",
                            "http://127.0.0.1:" + collector.getAddress().getPort(),
                            "OTEL_EXPORTER_OTLP_PROTOCOL",
                            "http/protobuf"))
                    .orElseThrow();
        }
        boolean traced = sdk != null;
        try {
            return EndToEnd.run(
                    ctx,
                    traced ? "traced deliveries" : "deliveries",
                    count,
                    0,
                    i -> ctx.jdbi()
                            .inTransaction(h -> Outbox.enqueue(
                                    h, OutboundScenario.event(prefix, i).inTrace(traced ? producerSpan() : null)))
                            .toString(),
                    tally.firstArrival);
        } finally {
            if (sdk != null) {
                sdk.stop();
                GlobalOpenTelemetry.resetForTest();
            }
        }
    }

    private static String producerSpan() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "00-" + HexFormat.of().toHexDigits(random.nextLong() | 1)
                + HexFormat.of().toHexDigits(random.nextLong()) + "-"
                + HexFormat.of().toHexDigits(random.nextLong() | 1) + "-01";
    }
}
