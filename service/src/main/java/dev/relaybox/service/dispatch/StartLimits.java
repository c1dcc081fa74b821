package dev.relaybox.service.dispatch;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Optional;

/**
 * What decides whether a row's workflow can ever start. Rows inserted by plain SQL meet none of the API's limits,
 * so the dispatcher quarantines, with the reason, only a row the engine would refuse on every try: a payload over
 * what the engine carries (found by the source), or a start the server refused as invalid; and a row its source
 * refuses (an outbox row the event-type catalog refuses). A long but valid field
 * (an event type or aggregate over a search attribute's 2 KiB) is no such row: what visibility shows of it is cut to
 * the server's limits ({@code VisibilityLimits}), and the event itself flows whole.
 */
final class StartLimits {
    private StartLimits() {}

    /** Why the row can never start, or empty. */
    static Optional<String> unstartable(DispatchSource.Row row) {
        return Optional.ofNullable(row.unstartable());
    }

    /** A refusal the same request would get again (the server found an argument invalid), or empty when passing. */
    static Optional<String> refusedForGood(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StatusRuntimeException grpc
                    && grpc.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                if (notSetUp(grpc.getStatus().getDescription())) {
                    return Optional.empty();
                }
                return Optional.of("Temporal refused to start its workflow: "
                        + grpc.getStatus().getDescription());
            }
        }
        return Optional.empty();
    }

    /** Why a start failed, for the log line that says the row waits: what the server said, if it answered. */
    static String whyNotStarted(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StatusRuntimeException grpc) {
                String description = grpc.getStatus().getDescription();
                if (grpc.getStatus().getCode() == Status.Code.INVALID_ARGUMENT && notSetUp(description)) {
                    return "Temporal is not set up for Relaybox (relaybox temporal setup registers its search "
                            + "attributes): " + description;
                }
                return grpc.getStatus().getCode() + ": " + description;
            }
        }
        return String.valueOf(failure);
    }

    /**
     * A Temporal whose search attributes are not registered (a new, empty cluster before {@code relaybox temporal
     * setup} ran, e.g. after its state was lost) refuses every start alike: the rows are fine, and wait for the setup.
     * SQL visibility (PostgreSQL, the dev server's SQLite) says the namespace "has no mapping defined for search
     * attribute X"; Elasticsearch says "search attribute X is not defined". Relaybox sets only its own attributes,
     * so either means the setup, never the row.
     */
    private static boolean notSetUp(String description) {
        return description != null
                && (description.contains("has no mapping defined for search attribute")
                        || (description.contains("search attribute") && description.contains("is not defined")));
    }
}
