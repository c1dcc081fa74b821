package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An endpoint's static request headers (an API key its receiver's gateway wants, say): checked before they are
 * stored, and read back as stored, a JSON object of name to value. They never replace what Relaybox itself sends (the
 * signature headers, the body's type, its own {@code relaybox-*} headers) and never carry a line break.
 */
public final class EndpointHeaders {
    static final int MAX_HEADERS = 20;
    static final int MAX_NAME_LENGTH = 100;
    static final int MAX_VALUE_LENGTH = 2000;

    /** RFC 9110 token characters. */
    private static final Pattern NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    /** Visible ASCII, spaces and tabs: no CR, LF or other control characters. */
    private static final Pattern VALUE = Pattern.compile("[\\t\\x20-\\x7E]*");

    private static final Set<String> RESERVED = Set.of(
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "content-type",
            "content-length",
            "content-encoding",
            "transfer-encoding",
            "host",
            "connection");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> MAP = new TypeReference<>() {};

    private EndpointHeaders() {}

    /** Headers that cannot be stored, with why. */
    public static final class InvalidHeaders extends IllegalArgumentException {
        InvalidHeaders(String reason) {
            super(reason);
        }
    }

    /** Throws {@link InvalidHeaders} with the reason when {@code headers} cannot be sent as given. */
    public static Map<String, String> check(Map<String, String> headers) {
        if (headers.size() > MAX_HEADERS) {
            throw new InvalidHeaders("at most " + MAX_HEADERS + " headers");
        }
        Map<String, String> seen = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, value) -> {
            if (name == null
                    || name.length() > MAX_NAME_LENGTH
                    || !NAME.matcher(name).matches()) {
                throw new InvalidHeaders("header name \"" + name + "\" must be 1 to " + MAX_NAME_LENGTH
                        + " token characters (letters, digits and !#$%&'*+.^_`|~-)");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (RESERVED.contains(lower) || lower.startsWith("relaybox-")) {
                throw new InvalidHeaders("header " + name + " is Relaybox's own: webhook-id, webhook-timestamp, "
                        + "webhook-signature, the content and connection headers and relaybox-* cannot be set");
            }
            if (value == null
                    || value.length() > MAX_VALUE_LENGTH
                    || !VALUE.matcher(value).matches()) {
                // The value is a secret: the reason names the header, never its value.
                throw new InvalidHeaders("the value of header " + name + " must be up to " + MAX_VALUE_LENGTH
                        + " visible ASCII characters, spaces or tabs (no line breaks)");
            }
            if (seen.put(name, value) != null) {
                throw new InvalidHeaders("header " + name + " is given twice");
            }
        });
        return headers;
    }

    /** The stored form of checked headers; null for none. */
    public static String stored(Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        try {
            return JSON.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("headers cannot be written as JSON", e);
        }
    }

    /** Headers as stored (null: none), in the order they were given. */
    public static Map<String, String> read(String stored) {
        if (stored == null) {
            return Map.of();
        }
        try {
            return Collections.unmodifiableMap(JSON.readValue(stored, MAP));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored endpoint headers are not a JSON object", e);
        }
    }

    /** What the API shows after the answer that set them: every name, no value. */
    public static Map<String, String> redacted(Map<String, String> headers) {
        Map<String, String> redacted = new LinkedHashMap<>();
        headers.keySet().forEach(name -> redacted.put(name, "••••"));
        return redacted;
    }
}
