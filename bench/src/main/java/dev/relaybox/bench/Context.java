package dev.relaybox.bench;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.jdbi.v3.core.Jdbi;

/** What every scenario shares: the running Relaybox, the receiver, the options, the report, and waiting. */
final class Context {
    final Options options;
    final Relaybox relaybox;
    final Receiver receiver;
    final Report report;
    final Shop shop;
    /** Prefixes every id this run makes, so a shared external database never mixes runs. */
    final String runId;
    /** The database's clock when the run began: only rows from this run count as unfinished work. */
    final Instant runStart;

    private BareTemporal bare;
    /** Measured by one scenario, compared against by another. */
    double bareWorkflowsPerSecond = Double.NaN;
    /** What one bare workflow cost in the outbound scenario, and its history length; null until it ran. */
    Costs.PerEvent bareCost;

    double bareHistory = Double.NaN;

    int workflowsRun;

    Context(Options options, Relaybox relaybox, Receiver receiver, Report report, String runId) {
        this.options = options;
        this.relaybox = relaybox;
        this.receiver = receiver;
        this.report = report;
        this.shop = new Shop(relaybox);
        this.runId = runId;
        this.runStart = jdbi().withHandle(
                        h -> h.createQuery("SELECT now()").mapTo(Instant.class).one());
    }

    Jdbi jdbi() {
        return relaybox.jdbi();
    }

    /**
     * Whether a scenario that runs {@code --jar} as its own process beside embedded PostgreSQL and Temporal can run:
     * outside embedded mode it is reported skipped; a jar not built yet is an error.
     */
    boolean canRunTheJar(String scenario) {
        if (!relaybox.embeddedDatabase() || !relaybox.embeddedTemporal()) {
            report.fact(scenario, "skipped", "only in embedded mode", "–");
            return false;
        }
        if (!Files.isRegularFile(options.jar)) {
            throw new IllegalStateException(options.jar + " is missing: mvn -q -DskipTests -pl service -am package");
        }
        return true;
    }

    synchronized BareTemporal bare() {
        if (bare == null) {
            bare = new BareTemporal(relaybox);
        }
        return bare;
    }

    void closeBare() throws InterruptedException {
        if (bare != null) {
            bare.close();
            bare = null;
        }
    }

    /**
     * A look inside the embedded Temporal server, when there is one: found again at each call, since a recycle replaces
     * the server (and a probe kept would keep the old one's memory).
     */
    Optional<TestServerProbe> probe() {
        return TestServerProbe.find(relaybox);
    }

    /** "12,345 executions, lock-event list 678,901 entries", or empty without an embedded server. */
    String serverState() {
        return probe().map(p -> String.format(
                        Locale.ROOT, "%,d executions, lock-event list %,d entries", p.executions(), p.lockEvents()))
                .orElse("");
    }

    /** Waits until {@code remaining} reaches 0, printing progress; returns false on timeout. */
    boolean await(String what, IntSupplier remaining) {
        return await(what, remaining, options.waitLimit);
    }

    boolean await(String what, IntSupplier remaining, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        long lastPrint = System.nanoTime();
        int left = remaining.getAsInt();
        while (left > 0) {
            if (System.nanoTime() > deadline) {
                System.out.printf(Locale.ROOT, "  gave up waiting for %s: %d left after %s%n", what, left, limit);
                return false;
            }
            if (System.nanoTime() - lastPrint > 10_000_000_000L) {
                System.out.printf(Locale.ROOT, "  waiting for %s: %d left%n", what, left);
                lastPrint = System.nanoTime();
            }
            sleep(100);
            left = remaining.getAsInt();
        }
        return true;
    }

    /** Lets the previous scenario's background work finish so it does not slow the next one down. */
    void settle() {
        await(
                "inbox rows of this run to be processed",
                () -> count("SELECT count(*) FROM webhook_inbox WHERE status = 'RECEIVED' AND received_at >= :since"));
        await(
                "outbox rows of this run to be finished",
                () -> count("SELECT count(*) FROM outbox_events WHERE processed_at IS NULL AND created_at >= :since"));
    }

    int count(String sql) {
        return jdbi().withHandle(h -> {
            var query = h.createQuery(sql);
            if (sql.contains(":since")) {
                query.bind("since", runStart);
            }
            return query.mapTo(int.class).one();
        });
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
