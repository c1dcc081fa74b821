package dev.relaybox.workflows.outbound;

/**
 * An HTTP attempt as the endpoint's controls took it.
 *
 * @param circuit the endpoint's circuit as the attempt left it; null when the attempt was not reported to the controls
 * @param outboxFinished the attempt delivered the row's last delivery still to be attempted, and finished the row
 */
public record SettledAttempt(AttemptResult result, CircuitState circuit, boolean outboxFinished) {
    /** An attempt the controls have not heard of yet: the workflow reports it. */
    static SettledAttempt unreported(AttemptResult result) {
        return new SettledAttempt(result, null, false);
    }

    boolean reported() {
        return circuit != null;
    }
}
