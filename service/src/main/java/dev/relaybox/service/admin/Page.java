package dev.relaybox.service.admin;

import java.util.List;

/** One page of a list; {@code nextOffset} is null on the last page. */
public record Page<T>(List<T> items, Integer nextOffset) {
    /** Builds a page from a query that fetched {@code limit + 1} rows to learn whether more exist. */
    static <T> Page<T> of(List<T> fetched, int limit, int offset) {
        boolean more = fetched.size() > limit;
        return new Page<>(more ? fetched.subList(0, limit) : fetched, more ? offset + limit : null);
    }
}
