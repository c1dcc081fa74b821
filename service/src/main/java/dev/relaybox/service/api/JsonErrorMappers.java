package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.dropwizard.jersey.validation.JerseyViolationException;
import jakarta.validation.ConstraintViolation;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Configurable;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Maps every failure to {@link ApiError}, in one place. Registered instead of Dropwizard's defaults. */
public final class JsonErrorMappers {
    private static final Logger LOG = LoggerFactory.getLogger(JsonErrorMappers.class);

    private JsonErrorMappers() {}

    /** Registers on the application, or on a {@code FeatureContext} where resources are tested alone. */
    public static void register(Configurable<?> jersey) {
        providers().forEach(jersey::register);
    }

    /** The mappers and converters behind the one error shape; a resource test registers the same. */
    public static List<Object> providers() {
        return List.of(
                new WebApplicationMapper(),
                new JsonMapper(),
                new ValidationMapper(),
                new UnexpectedMapper(),
                new InstantParamConverter());
    }

    static Response json(int status, String error, String reason) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ApiError(error, reason))
                .build();
    }

    private static final class WebApplicationMapper implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response response = e.getResponse();
            if (response.getEntity() instanceof ApiError) {
                return response;
            }
            Response.StatusType status = response.getStatusInfo();
            String error = status.getReasonPhrase().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
            String reason = e.getMessage() == null ? status.getReasonPhrase() : e.getMessage();
            return json(status.getStatusCode(), error, reason);
        }
    }

    private static final class JsonMapper implements ExceptionMapper<JsonProcessingException> {
        @Override
        public Response toResponse(JsonProcessingException e) {
            // A record that refuses unknown fields itself throws from its any-setter, which Jackson wraps.
            Throwable problem = e instanceof UnrecognizedPropertyException ? e : e.getCause();
            if (problem instanceof UnrecognizedPropertyException unknown) {
                return json(400, "unknown_field", "unknown field \"" + unknown.getPropertyName() + "\"");
            }
            return json(400, "invalid_json", "the body is not valid JSON for this request: " + e.getOriginalMessage());
        }
    }

    private static final class ValidationMapper implements ExceptionMapper<JerseyViolationException> {
        @Override
        public Response toResponse(JerseyViolationException e) {
            String reason = e.getConstraintViolations().stream()
                    .sorted(Comparator.comparing(v -> v.getPropertyPath().toString()))
                    .map(JsonErrorMappers::describe)
                    .collect(Collectors.joining("; "));
            return json(400, "invalid_request", reason);
        }
    }

    private static String describe(ConstraintViolation<?> v) {
        String path = v.getPropertyPath().toString();
        int dot = path.lastIndexOf('.');
        String field = dot >= 0 ? path.substring(dot + 1) : path;
        return field + " " + v.getMessage();
    }

    private static final class UnexpectedMapper implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable e) {
            LOG.error("request failed unexpectedly; nothing was committed by it", e);
            return json(500, "internal_error", "an unexpected error happened; it has been logged");
        }
    }
}
