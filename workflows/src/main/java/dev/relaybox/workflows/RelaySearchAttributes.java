package dev.relaybox.workflows;

import io.temporal.common.SearchAttributeKey;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Custom search attributes on every Relaybox workflow, so an operator can find a stuck event in the
 * Temporal UI, e.g. {@code RelayStatus="deferred" AND RelayAggregate="order:42"}. The embedded server
 * and docker-compose's setup step register exactly these.
 */
public final class RelaySearchAttributes {
    public static final SearchAttributeKey<String> DIRECTION = SearchAttributeKey.forKeyword("RelayDirection");
    public static final SearchAttributeKey<String> STATUS = SearchAttributeKey.forKeyword("RelayStatus");
    public static final SearchAttributeKey<String> EVENT_TYPE = SearchAttributeKey.forKeyword("RelayEventType");
    public static final SearchAttributeKey<String> AGGREGATE = SearchAttributeKey.forKeyword("RelayAggregate");
    public static final SearchAttributeKey<String> PEER = SearchAttributeKey.forKeyword("RelayPeer");
    public static final SearchAttributeKey<Long> ATTEMPTS = SearchAttributeKey.forLong("RelayAttempts");

    public static final List<SearchAttributeKey<?>> ALL =
            List.of(DIRECTION, STATUS, EVENT_TYPE, AGGREGATE, PEER, ATTEMPTS);

    /** What a Temporal server accepts in one keyword value (its default limit is 2 KiB), with room for quoting. */
    static final int MAX_KEYWORD_BYTES = 2000;

    private RelaySearchAttributes() {}

    /**
     * {@code values} joined by spaces, as many whole values as fit in one keyword, then "(+N more)". A larger
     * value would make a real server fail every workflow task of the workflow that sets it.
     */
    public static String keywordOf(List<String> values) {
        StringBuilder joined = new StringBuilder();
        int bytes = 0;
        for (int i = 0; i < values.size(); i++) {
            String next = (joined.length() == 0 ? "" : " ") + values.get(i);
            int nextBytes = next.getBytes(StandardCharsets.UTF_8).length;
            String more = " (+" + (values.size() - i) + " more)";
            boolean last = i == values.size() - 1;
            if (bytes + nextBytes + (last ? 0 : more.length()) > MAX_KEYWORD_BYTES) {
                return joined.append(joined.length() == 0 ? more.trim() : more).toString();
            }
            joined.append(next);
            bytes += nextBytes;
        }
        return joined.toString();
    }
}
