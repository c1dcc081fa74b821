package dev.relaybox.bench;

import io.dropwizard.testing.ConfigOverride;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/** Every scenario asked for, against one Relaybox booted in this JVM on one embedded engine (or external services). */
final class EnginePass {
    /** What one pass measured and what it ran on. */
    record Result(
            String engine,
            Report report,
            String temporalServer,
            String postgresVersion,
            boolean embeddedDatabase,
            boolean embeddedTemporal,
            String idleCpu) {}

    interface Scenario {
        void run() throws Exception;
    }

    private EnginePass() {}

    static Result run(Options o, String stamp, String runId) throws Exception {
        Report report = new Report();
        // Every pass uses the same workflow ids: receipts left from the pass before would be taken for this one's.
        BareTemporal.TOUCHED.clear();
        try (Receiver receiver = new Receiver();
                Engine engine = Engine.start(o)) {
            long booting = System.nanoTime();
            Relaybox relaybox = Relaybox.start(
                    o.config,
                    engine,
                    List.of(
                            ConfigOverride.config("delivery.retryDelays", o.drainDelays),
                            ConfigOverride.config("delivery.jitter", "0"),
                            ConfigOverride.config("inbox.recheckInterval", "1h")));
            try (relaybox) {
                engine.checkNamespace(relaybox.namespace());
                double bootSeconds = (System.nanoTime() - booting) / 1e9;
                MemoryScenario.Sample atBoot = MemoryScenario.measure(0, relaybox.engineProcesses());
                // What the service costs with nothing to do: pollers, dispatcher, reconciler, the embedded server.
                Cpu.Snapshot idleFrom = Cpu.now();
                double engineFrom = relaybox.engineProcesses().cpuSeconds();
                long idleStarted = System.nanoTime();
                Context.sleep(10_000);
                String idleCpu = Cpu.between(idleFrom, Cpu.now());
                if (relaybox.engineProcesses().isPresent()) {
                    // Part of "other processes": the engine's own share, so its background work shows apart.
                    idleCpu += String.format(
                            Locale.ROOT,
                            "; the engine's processes %.2f of it",
                            (relaybox.engineProcesses().cpuSeconds() - engineFrom)
                                    / ((System.nanoTime() - idleStarted) / 1e9));
                }
                System.out.println("Idle for 10 s after boot: " + idleCpu);
                report.metric("Start-up", "s to healthy, fresh data directory", bootSeconds, Double.NaN, "");
                report.metric("Start-up", "JVM RSS MiB after boot", atBoot.rssMiB(), Double.NaN, "");
                report.metric("Start-up", "engine process RSS MiB after boot", atBoot.engineMiB(), Double.NaN, "");
                Context ctx = new Context(o, relaybox, receiver, report, runId);
                if (o.patchTestServer) {
                    ctx.probe()
                            .orElseThrow(
                                    () -> new IllegalStateException("--patch-test-server needs the in-process server"))
                            .patch();
                    System.out.println("Patched the embedded server's lock-event list (comparison run)");
                }
                String postgresVersion = ctx.jdbi()
                        .withHandle(h -> h.createQuery("SHOW server_version")
                                .mapTo(String.class)
                                .one());
                String temporalServer = !engine.embedded()
                        ? engine.describe(serverVersion(relaybox))
                        : !relaybox.embeddedTemporal()
                                ? "server " + serverVersion(relaybox) + " at " + relaybox.temporalTarget()
                                : relaybox.engineProcesses().isPresent()
                                        ? "the embedded dev server (temporal server start-dev "
                                                + serverVersion(relaybox) + ", its own process)"
                                        : "embedded temporal-test-server "
                                                + Machine.versions().getProperty("temporal.version") + " in this JVM";
                scenarios(ctx, stamp, atBoot);
                return new Result(
                        o.engine,
                        report,
                        temporalServer,
                        postgresVersion,
                        relaybox.embeddedDatabase(),
                        relaybox.embeddedTemporal(),
                        idleCpu);
            }
        }
    }

    private static void scenarios(Context ctx, String stamp, MemoryScenario.Sample boot) throws Exception {
        Options o = ctx.options;
        Report report = ctx.report;
        Admin admin = new Admin(ctx.relaybox);
        String endpointId = admin.registerEndpoint(ctx.runId, ctx.receiver.url(OutboundScenario.PATH), "[\"bench.*\"]");
        Poller.createTable(ctx.jdbi());
        try {
            if (o.wedgeProbe) {
                WedgeProbe.run(ctx, o.results.resolve(stamp + "-wedge-threads.txt"));
                return;
            }
            InboxScenarios inbox = new InboxScenarios(ctx);
            run(ctx, stamp, "inbox", "Inbox accept", inbox::accept);
            run(ctx, stamp, "duplicates", "Duplicate storm", inbox::duplicates);
            run(ctx, stamp, "durability", DurabilityScenario.TITLE, () -> new DurabilityScenario(ctx).run());
            run(ctx, stamp, "outbound", "Outbound end to end", () -> new OutboundScenario(ctx).run());
            run(ctx, stamp, "fanout", "Outbound fan-out", () -> new FanOutScenario(ctx).run());
            run(ctx, stamp, "destinations", DestinationsScenario.TITLE, () -> new DestinationsScenario(ctx).run());
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
            run(ctx, stamp, "crash-drill", CrashDrillScenario.TITLE, () -> new CrashDrillScenario(ctx).run());
            run(ctx, stamp, "workers", WorkersScenario.TITLE, () -> new WorkersScenario(ctx).run());
            run(ctx, stamp, "roles", SplitRolesScenario.TITLE, () -> new SplitRolesScenario(ctx).run());
            run(ctx, stamp, "tracing", TracingScenario.TITLE, () -> new TracingScenario(ctx).run());
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

    private static void run(Context ctx, String stamp, String name, String title, Scenario scenario) {
        if (!ctx.options.scenarios.contains(name)) {
            return;
        }
        System.out.println("== " + name + " on " + ctx.options.engine);
        Recording recording = null;
        String tag = stamp + "-" + ctx.options.engine + "-" + name;
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
                Path jfr = ctx.options.results.resolve(tag + ".jfr");
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
