package dev.relaybox.workflows.outbound;

/**
 * An HTTP attempt as the endpoint's controls took it.
 *
 * @param circuit the endpoint's circuit as the attempt left it; null when the attempt was not reported to the controls
 * @param outboxFinished the attempt delivered the row's last delivery still to be attempted, and finished the row
 * @param cutShort a first attempt whose receiver did not answer within the first attempt's shorter deadline: the
 *     next attempt goes at once, with the full one, and this one does not count against the schedule
 */
public record SettledAttempt(AttemptResult result, CircuitState circuit, boolean outboxFinished, boolean cutShort) {
    public SettledAttempt(AttemptResult result, CircuitState circuit, boolean outboxFinished) {
        this(result, circuit, outboxFinished, false);
    }

    /** An attempt the controls have not heard of yet: the workflow reports it. */
    static SettledAttempt unreported(AttemptResult result) {
        return new SettledAttempt(result, null, false);
    }

    boolean reported() {
        return circuit != null;
    }
}
