package dev.relaybox.service.dispatch;

import dev.relaybox.activities.deadletter.DeadLetters;
import java.time.Duration;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the workflows of a batch of rows in parallel within one deadline, tells the starts Temporal refused for
 * good from those to try again, and settles both: the first quarantined as dead letters, the rest back to
 * undispatched. Shared by the dispatch and the reconcile loops.
 */
final class WorkflowStarts {
    // The dispatcher's logger: operators read starts under one name, whichever loop made them.
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final Jdbi jdbi;
    private final DeadLetters deadLetters;
    private final Duration timeout;
    private final ExecutorService starts;

    WorkflowStarts(Jdbi jdbi, DeadLetters deadLetters, int concurrency, Duration timeout) {
        this.jdbi = jdbi;
        this.deadLetters = deadLetters;
        this.timeout = timeout;
        this.starts = Executors.newFixedThreadPool(concurrency, runnable -> {
            Thread thread = new Thread(runnable, "relaybox-workflow-start");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Rows whose start call succeeded (of which {@code newRuns} started a workflow that was not running), rows Temporal
     * refused for good (with why), and rows to try again later.
     */
    record Starts(List<UUID> started, Map<DispatchSource.Row, String> refused, List<UUID> retryLater, int newRuns) {}

    /** A start call for one row: true when it started a new run, false when one was already running. */
    interface StartCall {
        boolean start(DispatchSource.Row row);
    }

    /** Starts every row in parallel, all within one deadline; a start still running at the deadline is abandoned. */
    Starts startAll(DispatchSource source, List<DispatchSource.Row> rows, StartCall call) {
        List<Future<Boolean>> futures = new ArrayList<>(rows.size());
        for (DispatchSource.Row row : rows) {
            futures.add(starts.submit(() -> call.start(row)));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
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
                        timeout);
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

    /** Rows refused for good are quarantined; rows refused for a passing reason go back to the dispatcher. */
    void settleFailed(DispatchSource source, Starts starts) {
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

    /** Takes a row that can never start out of the line as a dead letter; empty when another already did. */
    Optional<DeadLetters.DeadLetter> quarantine(
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

    void shutdown() {
        starts.shutdownNow();
    }
}
