package dev.relaybox.service.dispatch;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What decides whether a row's workflow can ever start. Rows inserted by plain SQL meet none of the API's limits,
 * and the test server checks none of the engine's, so the dispatcher checks before it starts: a row the engine
 * would refuse on every try is quarantined with the reason instead of being tried forever.
 */
final class StartLimits {
    /** Temporal's default limit on one search attribute value ({@code limit.searchAttributeValueSize}). */
    static final int MAX_SEARCH_ATTRIBUTE_BYTES = 2048;

    private StartLimits() {}

    /** Why the row can never start, or empty. */
    static Optional<String> unstartable(DispatchSource.Row row) {
        if (row.unstartable() != null) {
            return Optional.of(row.unstartable());
        }
        return tooLong("event type", row.eventType())
                .or(() -> tooLong("aggregate", row.aggregate()))
                .or(() -> tooLong("peer", row.peer()));
    }

    /** A refusal the same request would get again (the server found an argument invalid), or empty when passing. */
    static Optional<String> refusedForGood(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StatusRuntimeException grpc
                    && grpc.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                if (notSetUp(grpc.getStatus().getDescription())) {
                    return Optional.empty();
                }
                return Optional.of("Temporal refused to start its workflow: " + grpc.getStatus().getDescription());
            }
        }
        return Optional.empty();
    }

    /**
     * A Temporal whose search attributes are not registered (a new, empty cluster before {@code relaybox temporal
     * setup} ran, e.g. after its state was lost) refuses every start alike: the rows are fine, and wait for the setup.
     */
    private static boolean notSetUp(String description) {
        return description != null && description.contains("search attribute")
                && description.contains("is not defined");
    }

    private static Optional<String> tooLong(String field, String value) {
        if (value == null) {
            return Optional.empty();
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        return bytes > MAX_SEARCH_ATTRIBUTE_BYTES
                ? Optional.of(field + " is " + bytes + " bytes; Temporal refuses search attribute values over "
                        + MAX_SEARCH_ATTRIBUTE_BYTES + " bytes")
                : Optional.empty();
    }
}
