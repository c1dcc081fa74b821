package dev.relaybox.bench;

import dev.relaybox.store.InboxIntake;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Embedded mode as it ages: events pushed continuously up to the largest of --aging-sizes (default 100,000), with
 * JVM RSS, heap after GC, the throughput of the last window and the embedded engine's recycles reported at each size.
 * The cheapest realistic path that runs one workflow per event: an order.created for a new order, stored as the
 * intake stores it (the intake's own cost is measured elsewhere) and processed by its inbox workflow, with a bounded
 * backlog so the rate is the processing rate. Run it once per setting of TEMPORAL_EMBEDDED_RECYCLE_AFTER to compare.
 */
final class AgingScenario {
    static final String TITLE = "Embedded engine aging";
    /** Unprocessed events kept in front of the workers: enough to keep them busy, little enough to stay a stream. */
    private static final int BACKLOG = 400;
    /** Throughput is reported over the last this many events before each size. */
    private static final int WINDOW = 5_000;

    private final Context ctx;

    AgingScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        Report r = ctx.report;
        int recycleAfter = ctx.relaybox.config().getTemporal().embeddedRecycleAfter();
        String setting =
                recycleAfter == 0 ? "recycling off" : String.format(Locale.ROOT, "recycle after %,d", recycleAfter);
        String prefix = ctx.runId + "-age-";
        String like = prefix + "%";
        // When the processed count first reached each multiple of 1,000.
        Map<Integer, Long> reachedAt = new TreeMap<>();
        long began = System.nanoTime();
        reachedAt.put(0, began);
        int inserted = 0;
        int processed = 0;
        // VmRSS sampled as the run goes, with the processed count at the time: the footprint an operator sees. A
        // sample right after forced GCs is not that (G1 commits and returns memory in swings around a recycle).
        List<int[]> rssSamples = new ArrayList<>();
        MemoryScenario.Sample first = null;
        double firstRate = Double.NaN;
        IntSummaryStatistics firstRss = null;
        for (int size : o.agingSizes) {
            while (processed < size) {
                int room = Math.min(size, processed + BACKLOG) - inserted;
                if (room > 0) {
                    int from = inserted;
                    ctx.jdbi().useTransaction(h -> {
                        InboxIntake store = h.attach(InboxIntake.class);
                        for (int i = from; i < from + room; i++) {
                            String order = prefix + i;
                            store.receive(new InboxIntake.ReceivedEvent(
                                    "shop",
                                    order,
                                    "order.created",
                                    "order",
                                    order,
                                    Shop.event("order.created", order)));
                        }
                    });
                    inserted += room;
                }
                Context.sleep(250);
                int now = processed(like);
                long at = System.nanoTime();
                for (int k = (processed / 1000 + 1) * 1000; k <= now; k += 1000) {
                    reachedAt.put(k, at);
                }
                if (now / 10_000 > processed / 10_000) {
                    System.out.printf(
                            Locale.ROOT,
                            "  %,d processed after %.0f s, %d recycles%n",
                            now,
                            (at - began) / 1e9,
                            recycles());
                }
                processed = now;
                rssSamples.add(new int[] {now, (int) Machine.rssMiB()});
                if ((at - began) / 1e9 > o.waitLimit.toSeconds() * 10) {
                    r.fact(TITLE, "gave up at", String.format(Locale.ROOT, "%,d processed", processed), "–");
                    return;
                }
            }
            int windowStart = Math.max(0, size - WINDOW);
            long windowFrom = reachedAt.getOrDefault(windowStart, began);
            double rate = (size - windowStart) / ((reachedAt.get(size) - windowFrom) / 1e9);
            IntSummaryStatistics rss = rssSamples.stream()
                    .filter(sample -> sample[0] > windowStart)
                    .mapToInt(sample -> sample[1])
                    .summaryStatistics();
            rssSamples.clear();
            MemoryScenario.Sample s = MemoryScenario.measure(size, ctx.relaybox.engineProcesses());
            if (first == null) {
                first = s;
                firstRate = rate;
                firstRss = rss;
            }
            String at = String.format(Locale.ROOT, "after %,d events (%s)", size, setting);
            String base = String.format(Locale.ROOT, "same run after %,d", first.waiting());
            String window = String.format(Locale.ROOT, "over events %,d–%,d (%s)", windowStart, size, setting);
            r.metric(TITLE, "JVM RSS MiB, mean " + window, rss.getAverage(), firstRss.getAverage(), base);
            r.metric(TITLE, "JVM RSS MiB, peak " + window, rss.getMax(), firstRss.getMax(), base);
            r.metric(TITLE, "heap MiB after GC " + at, s.heapMiB(), first.heapMiB(), base);
            r.metric(
                    TITLE,
                    String.format(Locale.ROOT, "processed/s over events %,d–%,d (%s)", windowStart, size, setting),
                    rate,
                    firstRate,
                    base);
            r.fact(
                    TITLE,
                    "engine recycles so far " + at,
                    Integer.toString(recycles()),
                    recycleAfter == 0 ? "0" : String.format(Locale.ROOT, "about %,d", size / recycleAfter));
            TestServerProbe.find(ctx.relaybox)
                    .ifPresent(p -> r.fact(
                            TITLE,
                            "executions the embedded server holds " + at,
                            String.format(Locale.ROOT, "%,d", p.executions()),
                            "–"));
            // The run is long: what it measured so far survives an interrupted run.
            Files.writeString(o.results.resolve(ctx.runId + "-aging-so-far.md"), r.markdown());
            System.out.printf(
                    Locale.ROOT,
                    "  at %,d: RSS mean %.0f MiB, peak %d MiB, heap %.0f MiB, %.1f/s, %d recycles%n",
                    size,
                    rss.getAverage(),
                    rss.getMax(),
                    s.heapMiB(),
                    rate,
                    recycles());
        }
        ctx.workflowsRun += processed;
        r.note(
                TITLE,
                "One order.created per new order, stored through InboxIntake.receive (as the intake stores it) with at most "
                        + BACKLOG + " unprocessed, each processed by its own inbox workflow. Throughput and VmRSS "
                        + "(sampled about 4 times a second) over the last " + String.format(Locale.ROOT, "%,d", WINDOW)
                        + " events before each size; RSS of this JVM (Relaybox and the embedded Temporal server, default "
                        + "heap settings); heap after three System.gc() at each size. Setting: temporal."
                        + "embeddedRecycleAfter = " + recycleAfter + " (TEMPORAL_EMBEDDED_RECYCLE_AFTER).");
    }

    private int processed(String like) {
        return ctx.jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT count(*) FROM webhook_inbox WHERE partner_event_id LIKE :like AND status = 'PROCESSED'")
                        .bind("like", like)
                        .mapTo(int.class)
                        .one());
    }

    /** relaybox_embedded_engine_recycles_total from the admin port's /metrics. */
    private int recycles() {
        try {
            String metrics = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + ctx.relaybox.adminPort() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return metrics.lines()
                    .filter(line -> line.startsWith("relaybox_embedded_engine_recycles_total"))
                    .map(line -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .findFirst()
                    .orElse(0);
        } catch (Exception e) {
            return -1;
        }
    }
}
