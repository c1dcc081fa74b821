package dev.relaybox.workflows;

import io.temporal.common.SearchAttributeKey;
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
    /** Inbound: the partner. Outbound runs since bounded fan-out leave it unset (see {@link #ENDPOINTS}). */
    public static final SearchAttributeKey<String> PEER = SearchAttributeKey.forKeyword("RelayPeer");
    /**
     * Outbound: the names of the endpoints the event goes to, e.g. {@code RelayEndpoints = "shop"}; bounded by
     * {@link VisibilityLimits#endpointNames}, so a big fan-out ends in a marker such as {@code +150 more}.
     */
    public static final SearchAttributeKey<List<String>> ENDPOINTS =
            SearchAttributeKey.forKeywordList("RelayEndpoints");

    public static final SearchAttributeKey<Long> ATTEMPTS = SearchAttributeKey.forLong("RelayAttempts");

    public static final List<SearchAttributeKey<?>> ALL =
            List.of(DIRECTION, STATUS, EVENT_TYPE, AGGREGATE, PEER, ATTEMPTS, ENDPOINTS);

    private RelaySearchAttributes() {}
}
