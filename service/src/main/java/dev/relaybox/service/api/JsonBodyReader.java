package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Reads JSON request bodies the way PostgreSQL's {@code jsonb} will store them. Jackson accepts more than
 * {@code jsonb} does (a {@code \u0000} escape, unpaired surrogates, content after the value, numbers beyond a
 * double); such a body used to fail the insert with a 500 on every retry of the sender. Refusing it up front with
 * a 400 and the reason stops the retries and stores nothing.
 */
public final class JsonBodyReader {
    private final ObjectReader reader;

    public JsonBodyReader(ObjectMapper json) {
        this.reader = json.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** The body as the text to store and the tree it parses to. */
    public record Body(String text, JsonNode tree) {}

    /** Decodes strict UTF-8 and parses it, so Jackson and PostgreSQL read the same characters. */
    public Body read(byte[] raw) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString();
        } catch (CharacterCodingException e) {
            throw ApiException.badRequest("invalid_json", "the body is not valid UTF-8");
        }
        JsonNode tree;
        try {
            tree = reader.readTree(text);
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("invalid_json", "the body is not valid JSON: " + e.getOriginalMessage());
        }
        if (tree == null || tree.isMissingNode()) {
            throw ApiException.badRequest("invalid_json", "the body is empty");
        }
        requireStorable(tree);
        return new Body(text, tree);
    }

    /** Throws a 400 naming the first value that {@code jsonb} cannot hold, and where it is. */
    public static void requireStorable(JsonNode tree) {
        unstorable(tree, "").ifPresent(reason -> {
            throw ApiException.badRequest("invalid_json", "the body cannot be stored: " + reason);
        });
    }

    /**
     * The safety net for anything the checks above miss: PostgreSQL refusing the statement's data (SQLSTATE class
     * 22) is the sender's input, never a server fault, and nothing was written. {@code e} is the failed statement
     * (JDBI's {@code StatementException} or the producer library's {@code OutboxWriteException}), caused by the
     * driver's {@link SQLException}.
     */
    public static Optional<ApiException> refusedData(RuntimeException e) {
        if (e.getCause() instanceof SQLException sql
                && sql.getSQLState() != null
                && sql.getSQLState().startsWith("22")) {
            String message = sql.getMessage() == null
                    ? ""
                    : sql.getMessage().lines().findFirst().orElse("");
            return Optional.of(
                    ApiException.badRequest("invalid_json", "the database cannot store the body: " + message));
        }
        return Optional.empty();
    }

    private static Optional<String> unstorable(JsonNode node, String pointer) {
        if (node.isTextual()) {
            return unstorableText(node.textValue()).map(why -> why + " at " + where(pointer));
        }
        if ((node.isDouble() || node.isFloat()) && !Double.isFinite(node.doubleValue())) {
            return Optional.of("a number out of range at " + where(pointer));
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String child = pointer + "/" + field.getKey().replace("~", "~0").replace("/", "~1");
                Optional<String> reason = unstorableText(field.getKey())
                        .map(why -> why + " in a field name at " + where(pointer))
                        .or(() -> unstorable(field.getValue(), child));
                if (reason.isPresent()) {
                    return reason;
                }
            }
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Optional<String> reason = unstorable(node.get(i), pointer + "/" + i);
                if (reason.isPresent()) {
                    return reason;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unstorableText(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                return Optional.of("the character U+0000");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return Optional.of("an unpaired surrogate \\u" + Integer.toHexString(c));
            }
        }
        return Optional.empty();
    }

    private static String where(String pointer) {
        // Pointers may carry the very characters refused here; show an escaped form only.
        String shown = pointer.isEmpty() ? "the top level" : pointer;
        StringBuilder safe = new StringBuilder();
        shown.codePoints().forEach(cp -> {
            if (cp == 0 || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                safe.append("\\u").append(String.format("%04x", cp));
            } else {
                safe.appendCodePoint(cp);
            }
        });
        return safe.toString();
    }
}
