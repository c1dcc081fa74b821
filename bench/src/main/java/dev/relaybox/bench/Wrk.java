package dev.relaybox.bench;

import dev.relaybox.activities.outbound.WebhookSigner;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * HTTP load from a separate process: wrk (Debian package {@code wrk}) posting pre-signed Standard Webhooks, each
 * with a fresh event id, to {@code /webhooks/shop}. The JDK HttpClient in the benchmark's JVM would share the cores
 * it measures with the JIT, the garbage collector and the client's own threads; wrk is a small C program.
 */
final class Wrk {
    /** Closed-loop result: answers per second over the run, latency percentiles, failures. */
    record Result(
            long requests,
            double seconds,
            double p50Ms,
            double p99Ms,
            double maxMs,
            long non2xx,
            long socketErrors,
            boolean ranOut) {
        double perSecond() {
            return requests / seconds;
        }
    }

    private static final String SCRIPT = """
            -- Each thread takes every n-th pre-signed request of the file; answers are counted by wrk itself.
            local counter = 1
            function setup(thread)
              thread:set("id", counter)
              counter = counter + 1
            end
            function init(args)
              local path, file, threads = args[1], args[2], tonumber(args[3])
              reqs = {}
              local i = 0
              for line in io.lines(file) do
                if i % threads == id - 1 then
                  local eid, ts, sig, body = line:match("([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t(.*)")
                  reqs[#reqs + 1] = wrk.format("POST", path, {["content-type"] = "application/json",
                    ["webhook-id"] = eid, ["webhook-timestamp"] = ts, ["webhook-signature"] = sig}, body)
                end
                i = i + 1
              end
              n = 0
            end
            function request()
              n = n + 1
              if n > #reqs then n = 1 end
              return reqs[n]
            end
            function done(summary, latency, requests)
              local e = summary.errors
              io.write(string.format("RESULT %d %d %d %d %.3f %.3f %.3f\\n", summary.requests, summary.duration,
                e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50) / 1000,
                latency:percentile(99) / 1000, latency.max / 1000))
            end
            """;

    private Wrk() {}

    static boolean available() {
        try {
            Process p = new ProcessBuilder("wrk", "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Posts signed webhooks with ids {@code prefix + i} from {@code connections} keep-alive connections for
     * {@code duration}. {@code capacity} requests are signed up front; a run that needs more starts over from the
     * first (duplicates) and says so in {@link Result#ranOut}. Signed with the partner's {@code secret}.
     */
    static Result post(URI webhooks, String secret, String prefix, int connections, Duration duration, int capacity)
            throws Exception {
        Path dir = Files.createTempDirectory("relaybox-bench-wrk");
        Path requests = dir.resolve("requests.tsv");
        Path script = dir.resolve("webhooks.lua");
        long timestamp = Instant.now().getEpochSecond();
        try (Writer out = Files.newBufferedWriter(requests, StandardCharsets.UTF_8)) {
            for (int i = 0; i < capacity; i++) {
                String id = prefix + i;
                byte[] body = Shop.event("order.created", id).getBytes(StandardCharsets.UTF_8);
                out.write(id + "\t" + timestamp + "\t"
                        + WebhookSigner.signatureHeader(List.of(secret), id, timestamp, body) + "\t"
                        + new String(body, StandardCharsets.UTF_8) + "\n");
            }
        }
        Files.writeString(script, SCRIPT);
        int threads = Math.min(2, connections);
        String base = webhooks.getScheme() + "://" + webhooks.getAuthority();
        List<String> command = new ArrayList<>(List.of(
                "wrk",
                "-t",
                Integer.toString(threads),
                "-c",
                Integer.toString(connections),
                "-d",
                duration.toSeconds() + "s",
                "--timeout",
                "30s",
                "-s",
                script.toString(),
                base,
                "--",
                webhooks.getPath(),
                requests.toString(),
                Integer.toString(threads)));
        Process wrk = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!wrk.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS) || wrk.exitValue() != 0) {
            throw new IllegalStateException("wrk failed: " + output);
        }
        Files.delete(requests);
        Files.delete(script);
        Files.delete(dir);
        String line = output.lines()
                .filter(l -> l.startsWith("RESULT "))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no result from wrk: " + output));
        String[] f = line.split(" ");
        long count = Long.parseLong(f[1]);
        return new Result(
                count,
                Long.parseLong(f[2]) / 1e6,
                Double.parseDouble(f[5]),
                Double.parseDouble(f[6]),
                Double.parseDouble(f[7]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                count > capacity);
    }

    static String describe(Result r) {
        return String.format(
                Locale.ROOT,
                "%,d requests in %.1f s%s",
                r.requests(),
                r.seconds(),
                r.ranOut() ? " (more than were signed: the rest were duplicates)" : "");
    }
}
