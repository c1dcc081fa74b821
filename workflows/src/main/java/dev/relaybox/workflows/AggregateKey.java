package dev.relaybox.workflows;

import java.util.Objects;

/**
 * The business object an event is about, such as {@code order:1042}: events about one aggregate are applied (inbound)
 * or delivered in order (outbound, on ordered endpoints) one at a time. Written {@code type:id} wherever it is shown
 * or stored as one string.
 */
public record AggregateKey(String type, String id) {
    public AggregateKey {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(id, "id");
    }

    /** The key of a row whose two columns may both be null (inbound events without an aggregate); null then. */
    public static AggregateKey ofNullable(String type, String id) {
        return type == null || id == null ? null : new AggregateKey(type, id);
    }

    /** Reads {@code type:id}; the id may itself contain colons, the type may not. */
    public static AggregateKey parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("an aggregate is written type:id, for example order:1042");
        }
        return new AggregateKey(text.substring(0, colon), text.substring(colon + 1));
    }

    @Override
    public String toString() {
        return type + ":" + id;
    }
}
