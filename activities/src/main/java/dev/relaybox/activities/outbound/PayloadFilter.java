package dev.relaybox.activities.outbound;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Which payloads an endpoint receives: a condition on the event's {@code data} (the payload), or conditions combined
 * with {@code all}, {@code any} and {@code not}. A condition names a value by JSON Pointer (RFC 6901, {@code
 * /customer/country}; {@code ""} is the whole payload). Pure: {@link PayloadFilterSyntax} reads one from JSON and
 * says what is wrong with a bad one.
 */
public sealed interface PayloadFilter {
    boolean matches(JsonNode data);

    /** The comparisons a condition makes between the value at its path and its operand. */
    enum Operator {
        /** Equal JSON values; numbers by value ({@code 1} equals {@code 1.0}). */
        EQUALS,
        /** Equal to one of the operand's values. */
        IN,
        /** Operand {@code true}: the path is present (even with {@code null}); {@code false}: it is absent. */
        EXISTS,
        GT,
        GTE,
        LT,
        LTE;

        boolean numeric() {
            return this == GT || this == GTE || this == LT || this == LTE;
        }
    }

    record Condition(JsonPointer path, Operator operator, JsonNode operand) implements PayloadFilter {
        @Override
        public boolean matches(JsonNode data) {
            JsonNode value = data.at(path);
            return switch (operator) {
                case EXISTS -> value.isMissingNode() != operand.asBoolean();
                case EQUALS -> equal(value, operand);
                case IN -> {
                    for (JsonNode candidate : operand) {
                        if (equal(value, candidate)) {
                            yield true;
                        }
                    }
                    yield false;
                }
                // A value that is absent or not a number matches no comparison.
                case GT, GTE, LT, LTE ->
                    value.isNumber() && compares(value.decimalValue().compareTo(operand.decimalValue()));
            };
        }

        private boolean compares(int sign) {
            return switch (operator) {
                case GT -> sign > 0;
                case GTE -> sign >= 0;
                case LT -> sign < 0;
                case LTE -> sign <= 0;
                default -> throw new IllegalStateException(operator + " is not a comparison");
            };
        }

        private static boolean equal(JsonNode value, JsonNode operand) {
            if (value.isNumber() && operand.isNumber()) {
                return value.decimalValue().compareTo(operand.decimalValue()) == 0;
            }
            return !value.isMissingNode() && value.equals(operand);
        }
    }

    record All(List<PayloadFilter> filters) implements PayloadFilter {
        @Override
        public boolean matches(JsonNode data) {
            return filters.stream().allMatch(f -> f.matches(data));
        }
    }

    record Any(List<PayloadFilter> filters) implements PayloadFilter {
        @Override
        public boolean matches(JsonNode data) {
            return filters.stream().anyMatch(f -> f.matches(data));
        }
    }

    record Not(PayloadFilter filter) implements PayloadFilter {
        @Override
        public boolean matches(JsonNode data) {
            return !filter.matches(data);
        }
    }
}
