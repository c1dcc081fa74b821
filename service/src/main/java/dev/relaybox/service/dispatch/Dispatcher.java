package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import dev.relaybox.service.config.DispatcherFactory;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns rows into workflows. The dispatcher claims undispatched rows with {@code FOR UPDATE SKIP LOCKED} and
 * marks them dispatched in one short transaction, so several instances never start the same row twice at once,
 * then starts their workflows outside it (see {@link #dispatchBatch}). A duplicate start is answered "already
 * started". It wakes on NOTIFY and polls as a fallback. Beside it runs the {@link Reconciler}, for rows whose
 * workflow went missing; {@link #whilePaused} holds both.
 */
public final class Dispatcher implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Jdbi jdbi;
    private final List<DispatchSource> sources;
    private final DispatcherFactory config;
    private final DeadLetters deadLetters;
    private final Semaphore wake = new Semaphore(0);
    private final WorkflowStarts starts;
    private final DispatchPause pause = new DispatchPause();
    private final Reconciler reconciler;

    private volatile boolean stopped;
    private boolean engineStartsEmpty;
    private Optional<EmptyEngine> emptyEngine = Optional.empty();
    /** When the dispatch loop last finished a batch or a pass; null before its first. */
    private volatile Instant lastProgressAt;

    private Thread dispatchThread;
    private Thread reconcileThread;

    public Dispatcher(Jdbi jdbi, List<DispatchSource> sources, DispatcherFactory config, DeadLetters deadLetters) {
        this.jdbi = jdbi;
        this.sources = List.copyOf(sources);
        this.config = config;
        this.deadLetters = deadLetters;
        this.starts = new WorkflowStarts(jdbi, deadLetters, config.getStartConcurrency(), config.getStartTimeout());
        this.reconciler = new Reconciler(jdbi, this.sources, config, pause, starts, () -> stopped);
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

    /**
     * The engine this process starts holds no workflow (the in-process engine): the reconciler's first pass re-drives
     * every unfinished row at once rather than only the overdue ones. Call before {@link #start}.
     */
    public void engineStartsEmpty() {
        engineStartsEmpty = true;
    }

    /**
     * The engine keeps its state across restarts (a real server), but may lose it (a new empty server, a wiped
     * cluster): before every reconciler pass, at start and after Temporal comes back alike, it is asked for the
     * workflows of the oldest unfinished rows; when it holds none of them, every unfinished row is re-driven at once.
     * Call before {@link #start}.
     */
    public void watchFor(EmptyEngine engine) {
        emptyEngine = Optional.of(engine);
    }

    @Override
    public void start() {
        Instant startedAt = Instant.now();
        boolean empty = engineStartsEmpty;
        Optional<EmptyEngine> watched = emptyEngine;
        dispatchThread = new Thread(this::dispatchLoop, "relaybox-dispatcher");
        reconcileThread = new Thread(() -> reconciler.loop(startedAt, empty, watched), "relaybox-reconciler");
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
        starts.shutdown();
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
                // A short batch does not mean the source is drained: the fair claim picks its rows before
                // skipping the ones another instance holds.
                if (batch.claimed() == 0 || batch.retryLater() > 0) {
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
        return pause.batch(() -> dispatchBatchUnpaused(source));
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
                    starts.quarantine(handle, source, row, unstartable.get()).ifPresent(created::add);
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
        WorkflowStarts.Starts started = starts.startAll(source, startable, row -> {
            source.start(row);
            return true;
        });
        created.forEach(deadLetters::announce);
        starts.settleFailed(source, started);
        return new Batch(
                claimed.size(), started.started().size(), started.retryLater().size());
    }

    /**
     * Re-drives the unfinished rows that were overdue at {@code before} (see {@link DispatchSource#claimStranded}):
     * starts each one's workflow unless it is still running, and moves it to the back of the line either way.
     * Returns how many workflows it started afresh.
     */
    public int reconcile(Instant before) {
        return reconciler.reconcile(before);
    }

    /**
     * Re-drives every dispatched, unfinished row at once, whatever time it waits for: for a Temporal that lost every
     * execution (a recycled embedded server). Each new run waits for the time its row records, so nothing is attempted
     * early. Returns how many workflows it started.
     */
    public int redriveUnfinished() {
        return reconciler.redriveUnfinished();
    }

    /**
     * Runs {@code work} with the dispatcher paused: the batch or reconcile pass running now finishes first, and no
     * other begins until {@code work} returns. {@code work} may call {@link #reconcile} and {@link #redriveUnfinished}.
     */
    public <T> T whilePaused(Supplier<T> work) {
        return pause.whilePaused(work, () -> lastProgressAt = Instant.now());
    }

    /** Whether {@link #whilePaused} holds the dispatcher now: its loop waits, on purpose. */
    public boolean isPaused() {
        return pause.isPaused();
    }

    static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
