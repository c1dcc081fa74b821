package dev.relaybox.service.api;

import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Lets filters take {@code since=2026-11-30T09:00:00Z}; anything else is a 400 that says which format to use. */
public final class InstantParamConverter implements ParamConverterProvider {
    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        if (rawType != Instant.class) {
            return null;
        }
        return (ParamConverter<T>) new ParamConverter<Instant>() {
            @Override
            public Instant fromString(String value) {
                if (value == null || value.isBlank()) {
                    return null;
                }
                try {
                    return Instant.parse(value);
                } catch (DateTimeParseException e) {
                    throw ApiException.badRequest(
                            "invalid_time",
                            "\"" + value + "\" is not an ISO-8601 instant such as 2026-11-30T09:00:00Z");
                }
            }

            @Override
            public String toString(Instant value) {
                return value.toString();
            }
        };
    }
}
