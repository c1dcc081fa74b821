package dev.relaybox.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.UUID;

/**
 * Where the next page of a newest-first list starts: the {@code (created_at, id)} of the last row shown. Lists
 * page by key rather than by OFFSET, so a deep page costs one index range scan and rows inserted meanwhile
 * neither repeat nor vanish. Opaque to clients: they pass back the {@code nextCursor} they were given.
 */
public record Cursor(Instant at, UUID id) {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    public String encode() {
        return ENCODER.encodeToString((at + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /** Null for a missing or empty cursor (the first page); a readable reason for one that was not ours. */
    public static Cursor decodeNullable(String token) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            int bar = text.indexOf('|');
            return new Cursor(Instant.parse(text.substring(0, bar)), UUID.fromString(text.substring(bar + 1)));
        } catch (IllegalArgumentException | DateTimeParseException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("cursor is not one this list returned; start again without it");
        }
    }
}
