package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.service.config.DispatcherFactory;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns rows into workflows. The dispatcher claims undispatched rows with {@code FOR UPDATE SKIP LOCKED} and
 * marks them dispatched in one short transaction, so several instances never start the same row twice at once,
 * then starts their workflows outside it (see {@link #dispatchBatch}). A duplicate start is answered "already
 * started". It wakes on NOTIFY and polls as a fallback.
 * The reconciler re-drives only rows that are overdue: a delivery whose recorded next attempt is more than the grace
 * in the past, a deferred event whose recheck is, a row with no progress for the grace. It starts their workflows
 * afresh; one still running is left as it is. A healthy row waiting for its next attempt is never touched, yet
 * everything is re-driven after Temporal's state is lost (as after an embedded restart), each row when it falls due,
 * and its new run resumes the schedule the row records.
 */
public final class Dispatcher implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Jdbi jdbi;
    private final List<DispatchSource> sources;
    private final DispatcherFactory config;
    private final DeadLetters deadLetters;
    private final Semaphore wake = new Semaphore(0);
    private final ExecutorService starts;
    /**
     * Held by every dispatch batch and reconcile batch, and by {@link #whilePaused} for as long as its work runs: no
     * start reaches Temporal meanwhile. Fair, so a pause is not starved by a busy dispatch loop.
     */
    private final ReentrantLock passes = new ReentrantLock(true);

    private volatile boolean stopped;
    private volatile boolean paused;
    /** When the dispatch loop last finished a batch or a pass; null before its first. */
    private volatile Instant lastProgressAt;

    private Thread dispatchThread;
    private Thread reconcileThread;

    public Dispatcher(Jdbi jdbi, List<DispatchSource> sources, DispatcherFactory config, DeadLetters deadLetters) {
        this.jdbi = jdbi;
        this.sources = List.copyOf(sources);
        this.config = config;
        this.deadLetters = deadLetters;
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

    /**
     * Dispatches until no source has undispatched rows left, or a start failed for a passing reason (Temporal away:
     * the next pass, a poll interval later, tries again). Sources take turns batch by batch, so neither a busy
     * nor a failing source holds the other back. Returns how many workflows it started.
     */
    public int dispatchAll() {
        int total = 0;
        List<DispatchSource> active = new ArrayList<>(sources);
        while (!stopped && !active.isEmpty()) {
            for (DispatchSource source : List.copyOf(active)) {
                Batch batch = dispatchBatch(source);
                lastProgressAt = Instant.now();
                total += batch.started();
                if (batch.claimed() < config.getBatchSize() || batch.retryLater() > 0) {
                    active.remove(source);
                }
            }
        }
        return total;
    }

    /** One batch: how many rows were claimed, how many workflows started, how many go back to undispatched. */
    record Batch(int claimed, int started, int retryLater) {}

    /**
     * Claims and marks rows in one short transaction and starts their workflows after it committed: no row lock
     * and no pooled connection is held while Temporal is slow or away. Rows that can never start are quarantined
     * as dead letters; rows whose start failed for a passing reason are marked undispatched again. A crash between
     * the claim and the starts leaves dispatched rows without a workflow, which is the reconciler's to re-drive.
     */
    Batch dispatchBatch(DispatchSource source) {
        passes.lock();
        try {
            return dispatchBatchUnpaused(source);
        } finally {
            passes.unlock();
        }
    }

    private Batch dispatchBatchUnpaused(DispatchSource source) {
        List<DeadLetters.DeadLetter> created = new ArrayList<>();
        List<DispatchSource.Row> claimed = new ArrayList<>();
        List<DispatchSource.Row> startable = jdbi.inTransaction(handle -> {
            claimed.addAll(source.claimUndispatched(handle, config.getBatchSize()));
            List<DispatchSource.Row> rows = new ArrayList<>();
            for (DispatchSource.Row row : claimed) {
                Optional<String> unstartable = StartLimits.unstartable(row);
                if (unstartable.isPresent()) {
                    quarantine(handle, source, row, unstartable.get()).ifPresent(created::add);
                } else {
                    rows.add(row);
                }
            }
            if (!rows.isEmpty()) {
                source.markDispatched(
                        handle, rows.stream().map(DispatchSource.Row::id).toList());
            }
            return rows;
        });
        Starts starts = startAll(source, startable, row -> {
            source.start(row);
            return true;
        });
        created.forEach(deadLetters::announce);
        settleFailedStarts(source, starts);
        return new Batch(
                claimed.size(), starts.started().size(), starts.retryLater().size());
    }

    /** Rows refused for good are quarantined; rows refused for a passing reason go back to the dispatcher. */
    private void settleFailedStarts(DispatchSource source, Starts starts) {
        if (starts.refused().isEmpty() && starts.retryLater().isEmpty()) {
            return;
        }
        List<DeadLetters.DeadLetter> created = new ArrayList<>();
        jdbi.useTransaction(handle -> {
            starts.refused()
                    .forEach((row, reason) ->
                            quarantine(handle, source, row, reason).ifPresent(created::add));
            if (!starts.retryLater().isEmpty()) {
                source.markUndispatched(handle, starts.retryLater());
            }
        });
        created.forEach(deadLetters::announce);
    }

    private Optional<DeadLetters.DeadLetter> quarantine(
            Handle handle, DispatchSource source, DispatchSource.Row row, String reason) {
        if (!source.quarantine(handle, row.id(), reason)) {
            return Optional.empty();
        }
        return deadLetters.record(
                handle,
                source.deadLetterSource(),
                row.id(),
                row.peer(),
                row.eventType(),
                "cannot start: " + reason,
                reason,
                0);
    }

    private void reconcileLoop(Instant startedAt) {
        // First pass: what fell due before this process started, which after an embedded restart has no workflow
        // any more. Later passes: what is overdue by more than the grace period.
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

    /**
     * Re-drives the unfinished rows that were overdue at {@code before} (see {@link DispatchSource#claimStranded}):
     * starts each one's workflow unless it is still running, and moves it to the back of the line either way.
     * Returns how many workflows it started afresh.
     */
    public int reconcile(Instant before) {
        return restartEach((source, handle) -> source.claimStranded(handle, before, config.getBatchSize()));
    }

    /** Claims one batch of rows to restart from a source, in the caller's transaction. */
    private interface RestartClaim {
        List<DispatchSource.Row> claim(DispatchSource source, Handle handle);
    }

    private int restartEach(RestartClaim claim) {
        int total = 0;
        for (DispatchSource source : sources) {
            int claimed;
            do {
                int[] counts;
                passes.lock();
                try {
                    counts = restartBatch(source, claim);
                } finally {
                    passes.unlock();
                }
                claimed = counts[0];
                total += counts[1];
            } while (!stopped && claimed == config.getBatchSize());
        }
        return total;
    }

    /**
     * As a dispatch batch: the claimed rows are moved to the back of the line in one short transaction and restarted
     * after it committed, so no row lock is held while Temporal is slow or away. Rows whose restart failed for a
     * passing reason go back to the dispatcher; rows that can never start are quarantined. Returns how many rows it
     * claimed and how many new runs it started.
     */
    private int[] restartBatch(DispatchSource source, RestartClaim claim) {
        List<DispatchSource.Row> rows = jdbi.inTransaction(handle -> {
            List<DispatchSource.Row> claimed = claim.claim(source, handle);
            if (!claimed.isEmpty()) {
                source.markDispatched(
                        handle, claimed.stream().map(DispatchSource.Row::id).toList());
            }
            return claimed;
        });
        if (rows.isEmpty()) {
            return new int[] {0, 0};
        }
        Starts starts = startAll(source, rows, source::restart);
        settleFailedStarts(source, starts);
        return new int[] {rows.size(), starts.newRuns()};
    }

    /**
     * Re-drives every dispatched, unfinished row at once, whatever time it waits for: for a Temporal that lost every
     * execution (a recycled embedded server). Each new run waits for the time its row records, so nothing is attempted
     * early. Returns how many workflows it started.
     */
    public int redriveUnfinished() {
        // Rows re-driven here are marked dispatched now, after this instant: each is taken once.
        Instant dispatchedBefore = Instant.now();
        return restartEach((source, handle) -> source.claimUnfinished(handle, dispatchedBefore, config.getBatchSize()));
    }

    /**
     * Runs {@code work} with the dispatcher paused: the batch or reconcile pass running now finishes first, and no
     * other begins until {@code work} returns. {@code work} may call {@link #reconcile} and {@link #redriveUnfinished}.
     */
    public <T> T whilePaused(Supplier<T> work) {
        passes.lock();
        paused = true;
        try {
            return work.get();
        } finally {
            paused = false;
            lastProgressAt = Instant.now();
            passes.unlock();
        }
    }

    /** Whether {@link #whilePaused} holds the dispatcher now: its loop waits, on purpose. */
    public boolean isPaused() {
        return paused;
    }

    /**
     * Rows whose start call succeeded (of which {@code newRuns} started a workflow that was not running), rows Temporal
     * refused for good (with why), and rows to try again later.
     */
    private record Starts(
            List<UUID> started, Map<DispatchSource.Row, String> refused, List<UUID> retryLater, int newRuns) {}

    /** A start call for one row: true when it started a new run, false when one was already running. */
    private interface StartCall {
        boolean start(DispatchSource.Row row);
    }

    /** Starts every row in parallel, all within one deadline; a start still running at the deadline is abandoned. */
    private Starts startAll(DispatchSource source, List<DispatchSource.Row> rows, StartCall call) {
        List<Future<Boolean>> futures = new ArrayList<>(rows.size());
        for (DispatchSource.Row row : rows) {
            futures.add(starts.submit(() -> call.start(row)));
        }
        long deadline = System.nanoTime() + config.getStartTimeout().toNanos();
        List<UUID> started = new ArrayList<>(rows.size());
        int newRuns = 0;
        Map<DispatchSource.Row, String> refused = new LinkedHashMap<>();
        List<UUID> retryLater = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++) {
            DispatchSource.Row row = rows.get(i);
            try {
                if (futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    newRuns++;
                }
                started.add(row.id());
            } catch (ExecutionException e) {
                Optional<String> forGood = StartLimits.refusedForGood(e.getCause());
                if (forGood.isPresent()) {
                    refused.put(row, forGood.get());
                } else {
                    LOG.warn(
                            "could not start workflow {} for {} row {}; the next pass tries again: {}",
                            row.workflowId(),
                            source.name(),
                            row.id(),
                            StartLimits.whyNotStarted(e.getCause()));
                    retryLater.add(row.id());
                }
            } catch (TimeoutException e) {
                futures.get(i).cancel(true);
                LOG.warn(
                        "starting workflow {} for {} row {} took longer than {}; the next pass tries again",
                        row.workflowId(),
                        source.name(),
                        row.id(),
                        config.getStartTimeout());
                retryLater.add(row.id());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.subList(i, futures.size()).forEach(f -> f.cancel(true));
                rows.subList(i, rows.size()).forEach(r -> retryLater.add(r.id()));
                break;
            }
        }
        return new Starts(started, refused, retryLater, newRuns);
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
