package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a {@link PayloadFilter} from its JSON: {@code {"path": "/amount", "gte": 100}} (exactly one operator per
 * condition: {@code equals}, {@code in}, {@code exists}, {@code gt}, {@code gte}, {@code lt}, {@code lte}),
 * {@code {"all": [...]}}, {@code {"any": [...]}}, {@code {"not": {...}}}. An empty object is no filter at all. Bounded
 * in depth and size, since every event an endpoint might receive is tested against it.
 */
public final class PayloadFilterSyntax {
    static final int MAX_DEPTH = 8;
    static final int MAX_CONDITIONS = 64;
    static final int MAX_IN_VALUES = 100;
    static final int MAX_PATH_LENGTH = 500;

    /** A filter that cannot be read, with what is wrong with it. */
    public static final class InvalidFilter extends IllegalArgumentException {
        InvalidFilter(String reason) {
            super(reason);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private int conditions;

    private PayloadFilterSyntax() {}

    /** The filter {@code json} describes; empty for {@code null} or {@code {}}, which filter nothing. */
    public static Optional<PayloadFilter> read(JsonNode json) {
        if (json == null || json.isNull() || (json.isObject() && json.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(new PayloadFilterSyntax().filter(json, "filter", 1));
    }

    /** The stored form of the filter {@code json} describes; null for no filter. Throws {@link InvalidFilter}. */
    public static String stored(JsonNode json) {
        return read(json).map(filter -> json.toString()).orElse(null);
    }

    /** A filter as stored: written only after {@link #read} accepted it. */
    public static PayloadFilter readStored(String json) {
        return read(data(json)).orElseThrow(() -> new IllegalStateException("a stored payload filter is empty"));
    }

    /** JSON text as a tree, for a filter to test. */
    public static JsonNode data(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }

    private PayloadFilter filter(JsonNode json, String where, int depth) {
        if (!json.isObject()) {
            throw new InvalidFilter(where + " must be an object");
        }
        if (depth > MAX_DEPTH) {
            throw new InvalidFilter(where + " nests deeper than " + MAX_DEPTH + " levels");
        }
        if (json.has("all") || json.has("any") || json.has("not")) {
            if (json.size() != 1) {
                throw new InvalidFilter(where + " must have exactly one of all, any or not, and nothing beside it");
            }
            String combinator = json.fieldNames().next();
            JsonNode operand = json.get(combinator);
            if (combinator.equals("not")) {
                return new PayloadFilter.Not(filter(operand, where + ".not", depth + 1));
            }
            if (!operand.isArray() || operand.isEmpty()) {
                throw new InvalidFilter(where + "." + combinator + " must be a non-empty array of filters");
            }
            List<PayloadFilter> filters = new ArrayList<>();
            for (int i = 0; i < operand.size(); i++) {
                filters.add(filter(operand.get(i), where + "." + combinator + "[" + i + "]", depth + 1));
            }
            return combinator.equals("all") ? new PayloadFilter.All(filters) : new PayloadFilter.Any(filters);
        }
        return condition(json, where);
    }

    private PayloadFilter condition(JsonNode json, String where) {
        if (++conditions > MAX_CONDITIONS) {
            throw new InvalidFilter("a filter has at most " + MAX_CONDITIONS + " conditions");
        }
        JsonNode path = json.get("path");
        if (path == null || !path.isTextual()) {
            throw new InvalidFilter(where + " needs \"path\", a JSON Pointer such as \"/amount\"");
        }
        if (json.size() != 2) {
            throw new InvalidFilter(
                    where + " needs exactly one operator beside \"path\": equals, in, exists, gt, gte, lt or lte");
        }
        String name = fieldNames(json).stream()
                .filter(n -> !n.equals("path"))
                .findFirst()
                .orElseThrow();
        PayloadFilter.Operator operator = operator(name, where);
        JsonNode operand = json.get(name);
        checkOperand(operator, operand, where + "." + name);
        return new PayloadFilter.Condition(pointer(path.asText(), where), operator, operand);
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static PayloadFilter.Operator operator(String name, String where) {
        for (PayloadFilter.Operator operator : PayloadFilter.Operator.values()) {
            if (operator.name().toLowerCase(Locale.ROOT).equals(name)) {
                return operator;
            }
        }
        throw new InvalidFilter(where + ": unknown operator \"" + name + "\" (equals, in, exists, gt, gte, lt, lte)");
    }

    private static void checkOperand(PayloadFilter.Operator operator, JsonNode operand, String where) {
        if (operator.numeric() && !operand.isNumber()) {
            throw new InvalidFilter(where + " compares numbers: give a number");
        }
        if (operator == PayloadFilter.Operator.EXISTS && !operand.isBoolean()) {
            throw new InvalidFilter(where + " must be true or false");
        }
        if (operator == PayloadFilter.Operator.IN
                && (!operand.isArray() || operand.isEmpty() || operand.size() > MAX_IN_VALUES)) {
            throw new InvalidFilter(where + " must be an array of 1 to " + MAX_IN_VALUES + " values");
        }
    }

    private static JsonPointer pointer(String path, String where) {
        if (path.length() > MAX_PATH_LENGTH) {
            throw new InvalidFilter(where + ".path is longer than " + MAX_PATH_LENGTH + " characters");
        }
        try {
            return JsonPointer.compile(path);
        } catch (IllegalArgumentException e) {
            throw new InvalidFilter(where + ".path \"" + path + "\" is not a JSON Pointer (such as \"/amount\" or "
                    + "\"/customer/country\"): " + e.getMessage());
        }
    }
}
