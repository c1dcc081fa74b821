package dev.relaybox.store;

import dev.relaybox.workflows.AggregateKey;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * Which dead letters a list or a bulk replay means. Every field is optional; {@code source} is {@code outbox} or
 * {@code inbox}; {@code peer} is an endpoint's name or URL, or a partner's name; {@code aggregate} is
 * {@code type:id}; {@code endpointId} one endpoint's, {@code tenant} those of one tenant's endpoints. {@link #check}
 * refuses a source or aggregate that could never match, with a reason.
 */
public record DeadLetterFilter(
        String source,
        String eventType,
        String peer,
        String aggregate,
        Instant since,
        Instant until,
        UUID endpointId,
        String tenant) {

    /** An empty parameter ({@code ?peer=}) filters nothing, as an absent one. */
    public DeadLetterFilter {
        source = blankToNull(source);
        eventType = blankToNull(eventType);
        peer = blankToNull(peer);
        aggregate = blankToNull(aggregate);
    }

    public DeadLetterFilter(
            String source, String eventType, String peer, String aggregate, Instant since, Instant until) {
        this(source, eventType, peer, aggregate, since, until, null, null);
    }

    /** The outbound dead letters of one endpoint since a time. */
    public static DeadLetterFilter ofEndpoint(UUID endpointId, Instant since) {
        return new DeadLetterFilter("outbox", null, null, null, since, null, endpointId, null);
    }

    /** True when it filters nothing: every dead letter matches. */
    public boolean matchesEverything() {
        return source == null
                && eventType == null
                && peer == null
                && aggregate == null
                && since == null
                && until == null
                && endpointId == null
                && tenant == null;
    }

    public static DeadLetterFilter none() {
        return new DeadLetterFilter(null, null, null, null, null, null, null, null);
    }

    /** Throws {@link IllegalArgumentException} with a reason for a value no dead letter can have. */
    public DeadLetterFilter check() {
        sourceValue();
        aggregateKey();
        return this;
    }

    DeadLetterSource sourceValue() {
        if (source == null) {
            return null;
        }
        try {
            return DeadLetterSource.valueOf(source.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("source must be outbox or inbox, not \"" + source + "\"");
        }
    }

    AggregateKey aggregateKey() {
        return aggregate == null ? null : AggregateKey.parse(aggregate);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
