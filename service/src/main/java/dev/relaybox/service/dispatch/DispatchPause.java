package dev.relaybox.service.dispatch;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Held by every dispatch batch and reconcile batch, and by {@link #whilePaused} for as long as its work runs: no
 * start reaches Temporal meanwhile. Fair, so a pause is not starved by a busy dispatch loop.
 */
final class DispatchPause {
    private final ReentrantLock passes = new ReentrantLock(true);
    private volatile boolean paused;

    /** Runs one batch, unless and until a pause is over. */
    <T> T batch(Supplier<T> batch) {
        passes.lock();
        try {
            return batch.get();
        } finally {
            passes.unlock();
        }
    }

    /** Runs {@code work} with no batch running; {@code onResume} runs as the pause ends, before any batch. */
    <T> T whilePaused(Supplier<T> work, Runnable onResume) {
        passes.lock();
        paused = true;
        try {
            return work.get();
        } finally {
            paused = false;
            onResume.run();
            passes.unlock();
        }
    }

    boolean isPaused() {
        return paused;
    }
}
