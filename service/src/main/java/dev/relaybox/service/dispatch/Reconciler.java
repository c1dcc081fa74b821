package dev.relaybox.service.dispatch;

import dev.relaybox.service.config.DispatcherFactory;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-drives only rows that are overdue: a delivery whose recorded next attempt is more than the grace in the past,
 * a deferred event whose recheck is, a row with no progress for the grace. It starts their workflows afresh; one
 * still running is left as it is. A healthy row waiting for its next attempt is never touched, yet everything is
 * re-driven after Temporal's state is lost, each row when it falls due — or all at once when the engine is known to
 * have started empty (the in-process engine) or is found empty while rows wait for their workflows (a real server
 * that lost its state) — and its new run resumes the schedule the row records.
 */
final class Reconciler {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    /** Unfinished rows per source whose workflows are looked for: the oldest, which have surely had time to show. */
    private static final int LOSS_SAMPLE = 10;

    private final Jdbi jdbi;
    private final List<DispatchSource> sources;
    private final DispatcherFactory config;
    private final DispatchPause pause;
    private final WorkflowStarts starts;
    private final BooleanSupplier stopped;

    Reconciler(
            Jdbi jdbi,
            List<DispatchSource> sources,
            DispatcherFactory config,
            DispatchPause pause,
            WorkflowStarts starts,
            BooleanSupplier stopped) {
        this.jdbi = jdbi;
        this.sources = sources;
        this.config = config;
        this.pause = pause;
        this.starts = starts;
        this.stopped = stopped;
    }

    /**
     * @param engineStartedEmpty the engine is known to hold no workflow (the in-process engine at every start): the
     *     first pass re-drives every unfinished row at once, deferred ones included, so a release finds their runs
     * @param emptyEngine asked before each pass whether the engine lost its state, which is then re-driven the same way
     */
    void loop(Instant startedAt, boolean engineStartedEmpty, Optional<EmptyEngine> emptyEngine) {
        // First pass: what fell due before this process started, which after an embedded restart has no workflow
        // any more (or everything, when the engine is known or found to be empty). Later passes: what is overdue by
        // more than the grace period, or everything again when the engine is found empty.
        Instant before = startedAt;
        // Rows dispatched before the previous pass began have had a whole interval for their workflows to start.
        Instant previousPass = startedAt;
        boolean everything = engineStartedEmpty;
        while (!stopped.getAsBoolean()) {
            Instant passBegan = Instant.now();
            try {
                if (!everything && emptyEngine.isPresent()) {
                    everything = lostItsState(emptyEngine.get(), previousPass);
                }
                int restarted = everything ? redriveUnfinished() : reconcile(before);
                everything = false;
                if (restarted > 0) {
                    LOG.info("reconciler re-drove {} unfinished rows", restarted);
                }
                previousPass = passBegan;
                Thread.sleep(config.getReconcileInterval().toMillis());
                before = Instant.now().minus(config.getReconcileGrace());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("reconcile pass failed; retrying in {}: {}", config.getReconcileInterval(), e.toString());
                Dispatcher.sleepQuietly(config.getReconcileInterval());
            }
        }
    }

    /**
     * The oldest unfinished rows dispatched before {@code before}, whose workflows have had time to start and show,
     * have none in the engine, open or closed: it lost its state. An engine that cannot be asked (away, or without
     * Relaybox's namespace yet) is not taken for an empty one: the next pass asks again.
     */
    private boolean lostItsState(EmptyEngine engine, Instant before) {
        List<String> waiting = jdbi.inTransaction(handle -> sources.stream()
                .flatMap(source -> source.claimUnfinished(handle, before, LOSS_SAMPLE).stream())
                .map(DispatchSource.Row::workflowId)
                .toList());
        try {
            if (waiting.isEmpty() || !engine.holdsNoneOf(waiting)) {
                return false;
            }
        } catch (RuntimeException e) {
            LOG.debug("cannot count the workflows of unfinished rows: {}", e.toString());
            return false;
        }
        LOG.warn(
                "Temporal holds none of the workflows of the oldest {} unfinished rows: the engine lost its state;"
                        + " re-driving every unfinished row now, each to wait for the time its row records",
                waiting.size());
        return true;
    }

    /** See {@link Dispatcher#reconcile}. */
    int reconcile(Instant before) {
        return restartEach((source, handle) -> source.claimStranded(handle, before, config.getBatchSize()));
    }

    /** See {@link Dispatcher#redriveUnfinished}. */
    int redriveUnfinished() {
        // Rows re-driven here are marked dispatched now, after this instant: each is taken once.
        Instant dispatchedBefore = Instant.now();
        return restartEach((source, handle) -> source.claimUnfinished(handle, dispatchedBefore, config.getBatchSize()));
    }

    /** Claims one batch of rows to restart from a source, in the caller's transaction. */
    private interface RestartClaim {
        List<DispatchSource.Row> claim(DispatchSource source, Handle handle);
    }

    /** How many rows a restart batch claimed, and how many new runs it started. */
    private record Restarted(int claimed, int newRuns) {}

    private int restartEach(RestartClaim claim) {
        int total = 0;
        for (DispatchSource source : sources) {
            Restarted batch;
            do {
                batch = pause.batch(() -> restartBatch(source, claim));
                total += batch.newRuns();
            } while (!stopped.getAsBoolean() && batch.claimed() == config.getBatchSize());
        }
        return total;
    }

    /**
     * As a dispatch batch: the claimed rows are moved to the back of the line in one short transaction and restarted
     * after it committed, so no row lock is held while Temporal is slow or away. Rows whose restart failed for a
     * passing reason go back to the dispatcher; rows that can never start are quarantined.
     */
    private Restarted restartBatch(DispatchSource source, RestartClaim claim) {
        List<DispatchSource.Row> rows = jdbi.inTransaction(handle -> {
            List<DispatchSource.Row> claimed = claim.claim(source, handle);
            if (!claimed.isEmpty()) {
                source.markDispatched(
                        handle, claimed.stream().map(DispatchSource.Row::id).toList());
            }
            return claimed;
        });
        if (rows.isEmpty()) {
            return new Restarted(0, 0);
        }
        WorkflowStarts.Starts started = starts.startAll(source, rows, source::restart);
        starts.settleFailed(source, started);
        return new Restarted(rows.size(), started.newRuns());
    }
}
