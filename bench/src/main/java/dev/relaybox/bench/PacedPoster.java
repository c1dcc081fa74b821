package dev.relaybox.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A paced load generator in its own JVM: posts signed webhooks to {@code /webhooks/shop} at a fixed rate on an
 * open-loop schedule (latency counted from when each request was due, so a stall of the service shows up in the
 * percentiles instead of slowing the schedule down, as a closed loop such as wrk with a delay would), from a fixed
 * number of keep-alive connections. wrk cannot pace open-loop; the JDK HttpClient in the benchmark's JVM would share
 * the cores of the service it measures with its own threads and JIT. The benchmark starts this class as a child
 * process ({@link #run}) and reads one {@code RESULT} line back.
 */
public final class PacedPoster {
    /** What one paced run saw: requests sent, answers that were not 200, latency percentiles from the due time. */
    record Result(int requests, int failures, double seconds, double p50Ms, double p99Ms, double maxMs) {}

    private PacedPoster() {}

    /**
     * Child process entry: {@code url perSecond seconds connections prefix warmupSeconds}. The warm-up runs at the
     * same pace and is not recorded (the child's own JIT and connections).
     */
    public static void main(String[] args) throws Exception {
        URI url = URI.create(args[0]);
        double perSecond = Double.parseDouble(args[1]);
        long seconds = Long.parseLong(args[2]);
        int connections = Integer.parseInt(args[3]);
        String prefix = args[4];
        long warmupSeconds = Long.parseLong(args[5]);
        Shop shop = new Shop(url);
        if (warmupSeconds > 0) {
            int warm = (int) Math.max(1, perSecond * warmupSeconds);
            Load.paced(warm, connections, perSecond, () -> shop.poster(i -> event(prefix + "warm-", i)));
        }
        int count = (int) Math.max(1, perSecond * seconds);
        Run run = Load.paced(count, connections, perSecond, () -> shop.poster(i -> event(prefix, i)));
        System.out.printf(
                Locale.ROOT,
                "RESULT %d %d %.3f %.3f %.3f %.3f%n",
                run.items(),
                run.failures(),
                run.seconds(),
                run.latencies().percentileMs(50),
                run.latencies().percentileMs(99),
                run.latencies().maxMs());
        System.exit(0);
    }

    private static String[] event(String prefix, int i) {
        return new String[] {prefix + i, Shop.event("order.created", prefix + i)};
    }

    /**
     * Runs the generator as a child JVM (the benchmark's own jar and java), signing with {@code shop}'s secret, and
     * waits for its result.
     */
    static Result run(
            Shop shop,
            URI webhooks,
            double perSecond,
            Duration duration,
            int connections,
            String prefix,
            Duration warmup)
            throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path jar = Path.of(PacedPoster.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<String> command = new ArrayList<>(List.of(
                java,
                // Small and quiet: one GC thread, a small heap, so the generator takes as little of the cores as it
                // can.
                "-XX:+UseSerialGC",
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                jar.toString(),
                PacedPoster.class.getName(),
                webhooks.toString(),
                String.format(Locale.ROOT, "%.3f", perSecond),
                Long.toString(duration.toSeconds()),
                Integer.toString(connections),
                prefix,
                Long.toString(warmup.toSeconds())));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // The child's Shop reads it as the bench does; the environment keeps it out of the process list.
        builder.environment().put("SHOP_WEBHOOK_SECRET", shop.secret());
        Process child = builder.start();
        List<String> output = new ArrayList<>();
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.add(line);
            }
        }
        if (!child.waitFor(duration.plus(warmup).toSeconds() + 120, TimeUnit.SECONDS) || child.exitValue() != 0) {
            child.destroyForcibly();
            throw new IllegalStateException("paced load generator failed: " + String.join("\n", output));
        }
        String line = output.stream()
                .filter(l -> l.startsWith("RESULT "))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no result from the load generator: " + output));
        String[] f = line.split(" ");
        return new Result(
                Integer.parseInt(f[1]),
                Integer.parseInt(f[2]),
                Double.parseDouble(f[3]),
                Double.parseDouble(f[4]),
                Double.parseDouble(f[5]),
                Double.parseDouble(f[6]));
    }
}
