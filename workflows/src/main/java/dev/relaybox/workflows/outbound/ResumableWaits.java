package dev.relaybox.workflows.outbound;

import dev.relaybox.workflows.TimerOrSignal;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The waits of a delivery branch that a fresh run takes up from the database alone: for the next attempt the row
 * records, and for the endpoint's controls to admit it (which they decide again). While every unfinished branch is in
 * one and none is about to go on, the run can continue as new and lose nothing.
 */
final class ResumableWaits {
    private final List<Functions.Func<Boolean>> open = new ArrayList<>();
    private boolean cancelsTimersCutShort;

    /**
     * From now on a wait cut short by its signal cancels its timer ({@link DeliveryPlan#WAITS_CANCEL_THEIR_TIMERS}),
     * rather than leaving it to fire to nothing later.
     */
    void cancelTimersCutShort() {
        cancelsTimersCutShort = true;
    }

    /** {@link TimerOrSignal#await}, known here until it returns. */
    boolean await(Duration wait, String summary, Functions.Func<Boolean> signalled) {
        Functions.Proc1<Functions.Func<Boolean>> waiting = over -> {
            open.add(over);
            try {
                Workflow.await(over::apply);
            } finally {
                open.remove(over);
            }
        };
        return cancelsTimersCutShort
                ? TimerOrSignal.awaitCancellingTheTimer(wait, summary, signalled, waiting)
                : TimerOrSignal.await(wait, summary, signalled, waiting);
    }

    /** True when {@code branches} branches wait here, none of them woken yet (by its timer or a signal). */
    boolean allWaiting(long branches) {
        return branches > 0 && open.size() == branches && open.stream().noneMatch(Functions.Func::apply);
    }
}
