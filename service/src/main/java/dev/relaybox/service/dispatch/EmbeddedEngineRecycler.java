package dev.relaybox.service.dispatch;

import dev.relaybox.service.temporal.TemporalRuntime;
import io.dropwizard.lifecycle.Managed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps embedded mode's memory bounded: the SDK's test server keeps every execution for good (about 30 KiB each) and
 * slows as it ages, so once it has finished {@code temporal.embeddedRecycleAfter} executions it is replaced by a fresh
 * one and every unfinished row is re-driven from the database, whose rows hold each schedule. With the dispatcher
 * paused, the recycle waits for HTTP attempts in flight to finish and be recorded (see {@link TemporalRuntime#recycle}),
 * so no webhook goes out twice because of it.
 */
public final class EmbeddedEngineRecycler implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedEngineRecycler.class);
    /**
     * The longest wait for HTTP attempts in flight: an attempt ends within the delivery's connect and request timeouts
     * (20s as shipped). Past it the recycle goes on and logs what was left: delivery stays at least once.
     */
    static final Duration QUIESCE_LIMIT = Duration.ofSeconds(30);

    private static final Duration CHECK_EVERY = Duration.ofSeconds(1);

    private final TemporalRuntime temporal;
    private final Dispatcher dispatcher;
    private final long recycleAfter;
    private final Counter recycles;
    private volatile boolean stopped;
    private Thread thread;

    public EmbeddedEngineRecycler(
            TemporalRuntime temporal, Dispatcher dispatcher, long recycleAfter, MeterRegistry metrics) {
        this.temporal = temporal;
        this.dispatcher = dispatcher;
        this.recycleAfter = recycleAfter;
        this.recycles = Counter.builder("relaybox.embedded_engine.recycles")
                .description("times the embedded Temporal server was replaced by a fresh one to bound its memory")
                .register(metrics);
    }

    @Override
    public void start() {
        thread = new Thread(this::loop, "relaybox-engine-recycler");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(60_000);
    }

    private void loop() {
        while (!stopped) {
            try {
                Thread.sleep(CHECK_EVERY.toMillis());
                if (temporal.finishedExecutions() >= recycleAfter) {
                    recycle();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("recycling the embedded Temporal server failed; trying again: {}", e.toString(), e);
            }
        }
    }

    /** Replaces the embedded server now, whatever its count; returns how many unfinished rows were re-driven. */
    public int recycle() throws InterruptedException {
        long finished = temporal.finishedExecutions();
        long started = System.nanoTime();
        Outcome outcome = dispatcher.whilePaused(() -> {
            try {
                TemporalRuntime.Recycle recycle = temporal.recycle(QUIESCE_LIMIT);
                return new Outcome(recycle, dispatcher.redriveUnfinished(), null);
            } catch (InterruptedException e) {
                return new Outcome(null, 0, e);
            }
        });
        if (outcome.interrupted() != null) {
            throw outcome.interrupted();
        }
        recycles.increment();
        // The old server's executions are garbage now, but the JVM hands the heap they grew back to the operating
        // system only after a full collection: without one, the process's RSS stays at its high-water mark.
        System.gc();
        if (!outcome.recycle().settled()) {
            LOG.warn(
                    "recycling the embedded Temporal server: {} after {}s; went on (delivery stays at least once)",
                    outcome.recycle().unsettled(),
                    QUIESCE_LIMIT.toSeconds());
        }
        LOG.info(
                "recycled the embedded Temporal server after {} finished executions: quiesce {} ms, "
                        + "{} ms in all, {} unfinished rows re-driven",
                finished,
                outcome.recycle().quiesce().toMillis(),
                Duration.ofNanos(System.nanoTime() - started).toMillis(),
                outcome.redriven());
        return outcome.redriven();
    }

    private record Outcome(TemporalRuntime.Recycle recycle, int redriven, InterruptedException interrupted) {}
}
