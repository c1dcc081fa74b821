package dev.relaybox.store;

import java.util.List;
import java.util.function.Function;

/** One page of a newest-first list; {@code nextCursor} is null on the last page. */
public record Page<T>(List<T> items, String nextCursor) {
    /**
     * Builds a page from a query that fetched {@code limit + 1} rows after the cursor, ordered by
     * {@code created_at DESC, id DESC}, to learn whether more exist.
     */
    public static <T> Page<T> of(List<T> fetched, int limit, Function<T, Cursor> position) {
        if (fetched.size() <= limit) {
            return new Page<>(fetched, null);
        }
        List<T> items = fetched.subList(0, limit);
        return new Page<>(
                List.copyOf(items), position.apply(items.get(limit - 1)).encode());
    }
}
