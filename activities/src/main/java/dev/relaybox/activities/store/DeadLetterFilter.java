package dev.relaybox.activities.store;

import dev.relaybox.activities.deadletter.DeadLetters.Source;
import dev.relaybox.workflows.AggregateKey;
import java.time.Instant;
import java.util.Locale;

/**
 * Which dead letters a list or a bulk replay means. Every field is optional; {@code source} is {@code outbox} or
 * {@code inbox}; {@code peer} is an endpoint's name or URL, or a partner's name; {@code aggregate} is
 * {@code type:id}. {@link #check} refuses a source or aggregate that could never match, with a reason.
 */
public record DeadLetterFilter(
        String source, String eventType, String peer, String aggregate, Instant since, Instant until) {

    /** An empty parameter ({@code ?peer=}) filters nothing, as an absent one. */
    public DeadLetterFilter {
        source = blankToNull(source);
        eventType = blankToNull(eventType);
        peer = blankToNull(peer);
        aggregate = blankToNull(aggregate);
    }

    /** True when it filters nothing: every dead letter matches. */
    public boolean matchesEverything() {
        return source == null
                && eventType == null
                && peer == null
                && aggregate == null
                && since == null
                && until == null;
    }

    public static DeadLetterFilter none() {
        return new DeadLetterFilter(null, null, null, null, null, null);
    }

    /** Throws {@link IllegalArgumentException} with a reason for a value no dead letter can have. */
    public DeadLetterFilter check() {
        sourceValue();
        aggregateKey();
        return this;
    }

    Source sourceValue() {
        if (source == null) {
            return null;
        }
        try {
            return Source.valueOf(source.toUpperCase(Locale.ROOT));
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
