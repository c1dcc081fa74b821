package dev.relaybox.service.dispatch;

import dev.relaybox.service.config.DispatcherFactory;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns rows into workflows. The dispatcher claims undispatched rows with {@code FOR UPDATE SKIP LOCKED},
 * starts their workflows and marks them dispatched, all while holding the row locks, so several instances
 * never start the same row twice at once; a crash between start and commit only causes a duplicate start,
 * which Temporal answers with "already started". It wakes on NOTIFY and polls as a fallback.
 * The reconciler restarts dispatched rows that are not finished: a running workflow makes that a no-op,
 * a lost one (Temporal's state gone, as after an embedded restart) is started afresh.
 */
public final class Dispatcher implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Jdbi jdbi;
    private final List<DispatchSource> sources;
    private final DispatcherFactory config;
    private final Semaphore wake = new Semaphore(0);
    private final ExecutorService starts;
    private volatile boolean stopped;
    /** When the dispatch loop last finished a batch or a pass; null before its first. */
    private volatile Instant lastProgressAt;
    private Thread dispatchThread;
    private Thread reconcileThread;

    public Dispatcher(Jdbi jdbi, List<DispatchSource> sources, DispatcherFactory config) {
        this.jdbi = jdbi;
        this.sources = List.copyOf(sources);
        this.config = config;
        this.starts = Executors.newFixedThreadPool(config.getStartConcurrency(), runnable -> {
            Thread thread = new Thread(runnable, "relaybox-workflow-start");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Dispatch now rather than at the next poll. */
    public void wake() {
        wake.release();
    }

    /** When the dispatch loop last made progress (a batch or an empty pass); null before the first. */
    public Instant lastProgressAt() {
        return lastProgressAt;
    }

    /** Whether the dispatch loop runs (started and not stopped or dead). */
    public boolean isRunning() {
        return !stopped && dispatchThread != null && dispatchThread.isAlive();
    }

    @Override
    public void start() {
        Instant startedAt = Instant.now();
        dispatchThread = new Thread(this::dispatchLoop, "relaybox-dispatcher");
        reconcileThread = new Thread(() -> reconcileLoop(startedAt), "relaybox-reconciler");
        dispatchThread.start();
        reconcileThread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        stopped = true;
        wake.release();
        dispatchThread.interrupt();
        reconcileThread.interrupt();
        dispatchThread.join(10_000);
        reconcileThread.join(10_000);
        starts.shutdownNow();
    }

    private void dispatchLoop() {
        while (!stopped) {
            try {
                dispatchAll();
                lastProgressAt = Instant.now();
                wake.tryAcquire(config.getPollInterval().toMillis(), TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("dispatch pass failed; retrying in {}: {}", config.getPollInterval(), e.toString());
                sleepQuietly(config.getPollInterval());
            }
        }
    }

    /** Dispatches until no source has undispatched rows left; returns how many workflows it handed out. */
    public int dispatchAll() {
        int total = 0;
        for (DispatchSource source : sources) {
            int batch;
            do {
                batch = dispatchBatch(source);
                lastProgressAt = Instant.now();
                total += batch;
            } while (!stopped && batch == config.getBatchSize());
        }
        return total;
    }

    int dispatchBatch(DispatchSource source) {
        return jdbi.inTransaction(handle -> {
            List<DispatchSource.Row> rows = source.claimUndispatched(handle, config.getBatchSize());
            if (!rows.isEmpty()) {
                source.markDispatched(handle, startAll(source, rows));
            }
            return rows.size();
        });
    }

    private void reconcileLoop(Instant startedAt) {
        // First pass: everything dispatched before this process started, which after an embedded restart
        // has no workflow any more. Later passes: rows quiet for longer than the grace period.
        Instant before = startedAt;
        while (!stopped) {
            try {
                int restarted = reconcile(before);
                if (restarted > 0) {
                    LOG.info("reconciler re-drove {} unfinished rows", restarted);
                }
                Thread.sleep(config.getReconcileInterval().toMillis());
                before = Instant.now().minus(config.getReconcileGrace());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("reconcile pass failed; retrying in {}: {}", config.getReconcileInterval(), e.toString());
                sleepQuietly(config.getReconcileInterval());
            }
        }
    }

    /** Restarts every unfinished row dispatched before {@code before}; returns how many it touched. */
    public int reconcile(Instant before) {
        int total = 0;
        for (DispatchSource source : sources) {
            int batch;
            do {
                batch = jdbi.inTransaction(handle -> {
                    List<DispatchSource.Row> rows = source.claimStranded(handle, before, config.getBatchSize());
                    if (!rows.isEmpty()) {
                        source.markDispatched(handle, startAll(source, rows));
                    }
                    return rows.size();
                });
                total += batch;
            } while (!stopped && batch == config.getBatchSize());
        }
        return total;
    }

    private List<UUID> startAll(DispatchSource source, List<DispatchSource.Row> rows) {
        List<Future<UUID>> futures = new ArrayList<>(rows.size());
        for (DispatchSource.Row row : rows) {
            futures.add(starts.submit(() -> {
                source.start(row);
                return row.id();
            }));
        }
        List<UUID> started = new ArrayList<>(rows.size());
        for (int i = 0; i < futures.size(); i++) {
            try {
                started.add(futures.get(i).get());
            } catch (Exception e) {
                // Left undispatched: the next pass tries again.
                LOG.warn("could not start workflow {} for {} row {}: {}", rows.get(i).workflowId(), source.name(),
                        rows.get(i).id(), e.getCause() == null ? e.toString() : e.getCause().toString());
            }
        }
        return started;
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
