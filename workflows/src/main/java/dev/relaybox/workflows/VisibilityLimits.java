package dev.relaybox.workflows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps what Relaybox shows in Temporal's visibility within what every server accepts, which the test server does
 * not check. The frontend refuses a start or an upsert (a workflow task then fails with BAD_SEARCH_ATTRIBUTES) when
 * one search attribute value is over {@code frontend.searchAttributesSizeOfValueLimit} (2 KiB by default; a
 * KeywordList counts as one value) or all of them over {@code frontend.searchAttributesTotalSizeLimit} (40 KiB);
 * sizes are of the JSON-encoded payload. Below that, the SQL visibility stores (PostgreSQL, MySQL) keep each Keyword
 * attribute in a VARCHAR(255) column and refuse the whole visibility write of a longer value; SQLite (the dev
 * server) and Elasticsearch take it. A summary is limited to 400 bytes and details to 20,000 bytes.
 */
public final class VisibilityLimits {
    /**
     * One Keyword value: 255 UTF-8 bytes are at most 255 characters, so it fits the VARCHAR(255) columns of SQL
     * visibility; even if every character needs a 6-byte JSON escape it stays under 2 KiB.
     */
    public static final int KEYWORD_BYTES = 255;
    /** One endpoint name in {@link RelaySearchAttributes#ENDPOINTS}. */
    public static final int ENDPOINT_NAME_BYTES = 100;
    /** At most this many names in {@link RelaySearchAttributes#ENDPOINTS}; the rest are counted in a marker. */
    public static final int MAX_ENDPOINT_NAMES = 50;
    /** The whole encoded endpoint list, marker included: under the 2 KiB per-value limit. */
    public static final int ENDPOINT_LIST_BYTES = 1800;
    /** Static summaries and activity/timer summaries (the server's limit is 400 bytes of encoded JSON). */
    public static final int SUMMARY_BYTES = 300;
    /** Current details (the server's limit for details is 20,000 bytes of encoded JSON). */
    public static final int DETAILS_BYTES = 16_000;

    private static final String ELLIPSIS = "…";

    private VisibilityLimits() {}

    /**
     * The value cut to at most {@code maxBytes} UTF-8 bytes, ending in "…" when cut; never splits a character
     * (a surrogate pair stays whole). Null stays null.
     */
    public static String truncate(String value, int maxBytes) {
        if (value == null || utf8Bytes(value) <= maxBytes) {
            return value;
        }
        int budget = maxBytes - utf8Bytes(ELLIPSIS);
        if (budget < 0) {
            return "";
        }
        int end = 0;
        int used = 0;
        while (end < value.length()) {
            int codePoint = value.codePointAt(end);
            int size = utf8Bytes(codePoint);
            if (used + size > budget) {
                break;
            }
            used += size;
            end += Character.charCount(codePoint);
        }
        return value.substring(0, end) + ELLIPSIS;
    }

    public static String keyword(String value) {
        return truncate(value, KEYWORD_BYTES);
    }

    public static String summary(String value) {
        return truncate(value, SUMMARY_BYTES);
    }

    public static String details(String value) {
        return truncate(value, DETAILS_BYTES);
    }

    /**
     * Distinct endpoint names for {@link RelaySearchAttributes#ENDPOINTS}: at most {@link #MAX_ENDPOINT_NAMES}
     * and {@link #ENDPOINT_LIST_BYTES} encoded; when names are left out, the last value is a marker such as
     * {@code +150 more}. The full list is in the database (deliveries).
     */
    public static List<String> endpointNames(List<String> names) {
        List<String> distinct = names.stream()
                .distinct()
                .map(name -> truncate(name, ENDPOINT_NAME_BYTES))
                .toList();
        List<String> kept = new ArrayList<>();
        // "[]" plus room for the longest possible marker ("+2147483647 more" quoted, and a comma).
        int used = 2 + 20;
        for (String name : distinct) {
            int size = jsonBytes(name) + 1;
            if (kept.size() == MAX_ENDPOINT_NAMES || used + size > ENDPOINT_LIST_BYTES) {
                break;
            }
            kept.add(name);
            used += size;
        }
        if (kept.size() < distinct.size()) {
            kept.add(moreMarker(distinct.size() - kept.size()));
        }
        return kept;
    }

    /** The marker value standing for names left out of the list, e.g. {@code +150 more}. */
    public static String moreMarker(int leftOut) {
        return "+" + leftOut + " more";
    }

    public static int utf8Bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The size of the value as a JSON string, quotes and escapes included. */
    static int jsonBytes(String value) {
        int size = 2;
        for (int i = 0; i < value.length(); ) {
            int codePoint = value.codePointAt(i);
            size += codePoint == '"' || codePoint == '\\' ? 2 : codePoint < 0x20 ? 6 : utf8Bytes(codePoint);
            i += Character.charCount(codePoint);
        }
        return size;
    }

    private static int utf8Bytes(int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    }
}
