package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * Backlog drain: the receiver answers 503 while N rows are enqueued and for the outage after, then recovers. Time
 * to drain is from recovery until the receiver's own count of distinct webhook-ids reaches N; lost = N minus that
 * count. The SKIP LOCKED poller goes through the same outage with the same retry schedule as the baseline.
 */
final class DrainScenario {
    private static final int ROWS_PER_TRANSACTION = 100;

    private final Context ctx;

    DrainScenario(Context ctx) {
        this.ctx = ctx;
    }

    record Outcome(
            double drainSeconds,
            int lost,
            int duplicates,
            int refused,
            int failedBeforeRecovery,
            double enqueueSeconds,
            String cpu) {}

    void run() throws Exception {
        String scenario = "Backlog drain";
        Options o = ctx.options;
        if (o.drainOutage.toSeconds() >= o.drainScheduleSeconds()) {
            ctx.report.note(
                    scenario,
                    "The outage (" + o.drainOutage.toSeconds() + " s) is not shorter than the retry " + "schedule ("
                            + o.drainScheduleSeconds() + " s): rows may be dead-lettered, and count as lost.");
        }
        String prefix = ctx.runId + "-drain";
        Outcome relaybox = drain(
                OutboundScenario.PATH,
                ids -> enqueueOutbox(prefix, ids),
                () -> ctx.count(
                        "SELECT count(DISTINCT d.outbox_id) FROM deliveries d JOIN outbox_events e ON e.id = d.outbox_id "
                                + "WHERE d.attempts > 0 AND e.aggregate_id LIKE '" + prefix
                                + "%' AND e.created_at >= :since"));
        int deadLetters =
                ctx.count("SELECT count(*) FROM dead_letters WHERE source = 'OUTBOX' AND created_at >= :since");
        ctx.settle();
        ctx.workflowsRun += o.drainN;

        List<Duration> delays = new ArrayList<>();
        for (String d : o.drainDelays.split(",")) {
            delays.add(io.dropwizard.util.Duration.parse(d.trim()).toJavaDuration());
        }
        Poller poller = new Poller(ctx.jdbi(), ctx.receiver.url(OutboundScenario.POLLER_PATH), delays);
        poller.start(o.pollerThreads);
        Outcome plain;
        int pollerFailed;
        try {
            plain = drain(
                    OutboundScenario.POLLER_PATH,
                    ids -> enqueuePoller(prefix, ids),
                    () -> ctx.count("SELECT count(*) FROM " + Poller.TABLE
                            + " WHERE retry_count > 0 AND payload LIKE '%" + prefix + "%' AND created_at >= :since"));
            pollerFailed = poller.count("FAILED");
        } finally {
            poller.close();
        }

        Report r = ctx.report;
        String vsPoller = "SKIP LOCKED poller, same outage and schedule";
        r.metric(scenario, "time to drain after recovery, s", relaybox.drainSeconds(), plain.drainSeconds(), vsPoller);
        r.metric(
                scenario,
                "drained/s after recovery",
                o.drainN / relaybox.drainSeconds(),
                o.drainN / plain.drainSeconds(),
                vsPoller);
        r.fact(
                scenario,
                "lost (receiver's distinct webhook-ids)",
                relaybox.lost() + " (poller " + plain.lost() + ")",
                "0");
        r.fact(scenario, "duplicate deliveries", relaybox.duplicates() + " (poller " + plain.duplicates() + ")", "–");
        r.fact(scenario, "dead letters", deadLetters + " (poller FAILED " + pollerFailed + ")", "0");
        r.fact(
                scenario,
                "rows that had failed before recovery",
                relaybox.failedBeforeRecovery() + " of " + o.drainN + " (poller " + plain.failedBeforeRecovery() + ")",
                "–");
        r.fact(
                scenario,
                "503 answers during the outage",
                relaybox.refused() + " (poller " + plain.refused() + ")",
                "–");
        r.note(
                scenario,
                String.format(
                        Locale.ROOT,
                        "%d rows enqueued (%d per transaction) in %.1f s (poller table: %.1f s) "
                                + "while the receiver answers 503; it recovers %d s after the enqueue began. Retry schedule %s, jitter 0 "
                                + "(delivery.retryDelays / delivery.jitter overridden). Rows not yet dispatched at recovery are delivered "
                                + "on their first attempt; rows that failed wait out their current retry delay.",
                        o.drainN,
                        ROWS_PER_TRANSACTION,
                        relaybox.enqueueSeconds(),
                        plain.enqueueSeconds(),
                        o.drainOutage.toSeconds(),
                        o.drainDelays));
        r.note(scenario, "Relaybox: " + relaybox.cpu() + ". Poller: " + plain.cpu() + ".");
    }

    interface Enqueue {
        void rows(Set<String> ids) throws Exception;
    }

    private Outcome drain(String path, Enqueue enqueue, IntSupplier failedSoFar) throws Exception {
        Options o = ctx.options;
        Receiver.Tally tally = ctx.receiver.reset(path, 503);
        Set<String> ids = ConcurrentHashMap.newKeySet();
        long began = System.nanoTime();
        enqueue.rows(ids);
        double enqueueSeconds = (System.nanoTime() - began) / 1e9;
        long recoverAt = began + o.drainOutage.toNanos();
        while (System.nanoTime() < recoverAt) {
            Context.sleep(20);
        }
        int failed = failedSoFar.getAsInt();
        int refused = tally.refused.get();
        Cpu.Snapshot before = Cpu.now();
        long recovered = System.nanoTime();
        tally.status = 200;
        ctx.await("the backlog on " + path + " to drain", () -> (int)
                ids.stream().filter(id -> !tally.firstArrival.containsKey(id)).count());
        String cpu = Cpu.between(before, Cpu.now());
        long last = ids.stream()
                .map(tally.firstArrival::get)
                .filter(Objects::nonNull)
                .mapToLong(Long::longValue)
                .max()
                .orElse(recovered);
        int lost = (int)
                ids.stream().filter(id -> !tally.firstArrival.containsKey(id)).count();
        return new Outcome(
                (last - recovered) / 1e9, lost, tally.duplicates.get(), refused, failed, enqueueSeconds, cpu);
    }

    private void enqueueOutbox(String prefix, Set<String> ids) throws Exception {
        int batches = (ctx.options.drainN + ROWS_PER_TRANSACTION - 1) / ROWS_PER_TRANSACTION;
        Load.closed(batches, ctx.options.concurrency, () -> batch -> {
            ctx.jdbi().useTransaction(h -> {
                for (int i = batch * ROWS_PER_TRANSACTION;
                        i < Math.min(ctx.options.drainN, (batch + 1) * ROWS_PER_TRANSACTION);
                        i++) {
                    ids.add(Outbox.enqueue(h, OutboundScenario.event(prefix, i)).toString());
                }
            });
            return true;
        });
    }

    private void enqueuePoller(String prefix, Set<String> ids) throws Exception {
        int batches = (ctx.options.drainN + ROWS_PER_TRANSACTION - 1) / ROWS_PER_TRANSACTION;
        Load.closed(batches, ctx.options.concurrency, () -> batch -> {
            ctx.jdbi().useTransaction(h -> {
                for (int i = batch * ROWS_PER_TRANSACTION;
                        i < Math.min(ctx.options.drainN, (batch + 1) * ROWS_PER_TRANSACTION);
                        i++) {
                    UUID id = UUID.randomUUID();
                    Poller.enqueue(h, id, OutboundScenario.event(prefix, i).payloadJson());
                    ids.add(id.toString());
                }
            });
            return true;
        });
    }
}
