package dev.relaybox.service.api;

import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Lets filters take {@code since=2026-11-30T09:00:00Z} and {@code open=false}; anything else, an empty value too, is a
 * 400 that says which form to use (where JAX-RS by itself would read {@code open=null} as false).
 */
public final class StrictParamConverters implements ParamConverterProvider {
    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        if (rawType == boolean.class || rawType == Boolean.class) {
            return (ParamConverter<T>) BOOLEAN;
        }
        return rawType == Instant.class ? (ParamConverter<T>) INSTANT : null;
    }

    private static final ParamConverter<Instant> INSTANT = new ParamConverter<>() {
        @Override
        public Instant fromString(String value) {
            if (value == null) {
                return null;
            }
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException e) {
                throw ApiException.badRequest(
                        "invalid_time", "\"" + value + "\" is not an ISO-8601 instant such as 2026-11-30T09:00:00Z");
            }
        }

        @Override
        public String toString(Instant value) {
            return value.toString();
        }
    };

    private static final ParamConverter<Boolean> BOOLEAN = new ParamConverter<>() {
        @Override
        public Boolean fromString(String value) {
            if ("true".equals(value) || "false".equals(value)) {
                return Boolean.valueOf(value);
            }
            throw ApiException.badRequest("invalid_boolean", "\"" + value + "\" is neither true nor false");
        }

        @Override
        public String toString(Boolean value) {
            return value.toString();
        }
    };
}
