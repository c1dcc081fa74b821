package dev.relaybox.service.admin;

import dev.relaybox.service.api.ApiException;
import dev.relaybox.store.Cursor;
import dev.relaybox.workflows.AggregateKey;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Reads the filters and cursor of the admin lists; a value that cannot match is a 400 naming what would. */
public final class ListParams {
    private ListParams() {}

    /** An empty parameter filters nothing, as an absent one. */
    static String text(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /** A status in any case, e.g. {@code dead_lettered}; an empty one names none and is refused. */
    public static <E extends Enum<E>> E status(Class<E> type, String value) {
        if (value == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(
                    "invalid_status", "status must be one of " + vocabulary(type) + ", not \"" + value + "\"");
        }
    }

    /** The statuses a list's {@code status} filter takes, as the API writes them. */
    public static <E extends Enum<E>> List<String> vocabulary(Class<E> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(status -> status.name().toLowerCase(Locale.ROOT))
                .toList();
    }

    static AggregateKey aggregate(String value) {
        if (text(value) == null) {
            return null;
        }
        try {
            return AggregateKey.parse(value);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_aggregate", e.getMessage());
        }
    }

    public static Cursor cursor(String value) {
        try {
            return Cursor.decodeNullable(value);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_cursor", e.getMessage());
        }
    }
}
