package dev.relaybox.activities.catalog;

/**
 * A definition the catalog refuses, before anything is written: {@code error} is a stable code
 * ({@code invalid_schema}, {@code invalid_example}, {@code invalid_event_type}), the message says why, for the
 * person who wrote it.
 */
public final class InvalidEventTypeException extends Exception {
    public static final String INVALID_SCHEMA = "invalid_schema";
    public static final String INVALID_EXAMPLE = "invalid_example";
    public static final String INVALID_EVENT_TYPE = "invalid_event_type";

    private final String error;

    public InvalidEventTypeException(String error, String reason) {
        super(reason);
        this.error = error;
    }

    public String error() {
        return error;
    }
}
