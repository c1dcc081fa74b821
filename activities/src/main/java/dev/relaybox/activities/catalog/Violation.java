package dev.relaybox.activities.catalog;

import java.util.List;
import java.util.stream.Collectors;

/** Where a JSON value breaks its schema: a JSON path ({@code $} is the value itself) and what is wrong there. */
public record Violation(String path, String message) {
    /** The most violations one description lists; the rest are counted. */
    static final int MOST_DESCRIBED = 10;

    /** {@code $.orderId: integer found, string expected; $: required property 'carrier' not found}. */
    public static String describe(List<Violation> violations) {
        String listed = violations.stream()
                .limit(MOST_DESCRIBED)
                .map(v -> v.path() + ": " + v.message())
                .collect(Collectors.joining("; "));
        int more = violations.size() - MOST_DESCRIBED;
        return more > 0 ? listed + "; and " + more + " more" : listed;
    }
}
