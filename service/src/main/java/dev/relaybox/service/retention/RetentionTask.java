package dev.relaybox.service.retention;

import dev.relaybox.store.AdvisoryLocks;
import dev.relaybox.store.Retention;
import dev.relaybox.store.Retention.Ages;
import dev.relaybox.store.Retention.Purged;
import io.dropwizard.lifecycle.Managed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges finished rows every {@code interval}. However many Relaybox processes run, one purges at a time: a pass
 * runs only while it holds a PostgreSQL advisory lock, and a process that cannot take it skips its turn.
 */
public final class RetentionTask implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionTask.class);
    /** "relaybox" in ASCII: the advisory lock every Relaybox process's purge takes. */
    public static final long LOCK_KEY = 0x72656c6179626f78L;

    private static final Map<String, ToIntFunction<Purged>> TABLES = Map.of(
            "outbox_events", Purged::outboxEvents,
            "deliveries", Purged::deliveries,
            "delivery_attempts", Purged::deliveryAttempts,
            "webhook_inbox", Purged::inboxEvents,
            "dead_letters", Purged::deadLetters);

    private final Jdbi jdbi;
    private final Retention retention;
    private final Ages ages;
    private final int batchSize;
    private final Duration interval;
    private final MeterRegistry registry;
    private ScheduledExecutorService scheduler;

    public RetentionTask(
            Jdbi jdbi, Retention retention, Ages ages, int batchSize, Duration interval, MeterRegistry registry) {
        this.jdbi = jdbi;
        this.retention = retention;
        this.ages = ages;
        this.batchSize = batchSize;
        this.interval = interval;
        this.registry = registry;
        // Registered up front so the series exist (at 0) before the first purge.
        TABLES.keySet().forEach(this::purgedCounter);
    }

    @Override
    public void start() {
        if (interval.isZero()) {
            LOG.info("retention is off: finished rows are kept forever");
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "relaybox-retention");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleWithFixedDelay(
                this::runQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private void runQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            // The next pass picks up where this one stopped: each batch committed on its own.
            LOG.warn("retention pass failed; trying again in {}: {}", interval, e.toString());
        }
    }

    /** One pass; empty when another process holds the purge lock. */
    public Optional<Purged> runOnce() {
        return jdbi.withHandle(handle -> {
            AdvisoryLocks locks = handle.attach(AdvisoryLocks.class);
            if (!locks.tryLock(LOCK_KEY)) {
                return Optional.<Purged>empty();
            }
            try {
                Purged purged = retention.purge(ages, batchSize);
                TABLES.forEach((table, rows) -> purgedCounter(table).increment(rows.applyAsInt(purged)));
                if (purged.total() > 0) {
                    LOG.info("retention purged {} finished rows: {}", purged.total(), purged);
                }
                return Optional.of(purged);
            } finally {
                locks.unlock(LOCK_KEY);
            }
        });
    }

    private Counter purgedCounter(String table) {
        return Counter.builder("relaybox.retention.purged")
                .tag("table", table)
                .description("finished rows deleted by retention")
                .register(registry);
    }
}
