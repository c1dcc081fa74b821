package dev.relaybox.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.dropwizard.jersey.validation.JerseyViolationException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.ConstraintViolation;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configurable;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
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
                new StrictParamConverters());
    }

    static Response json(int status, String error, String reason) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ApiError(error, reason))
                .build();
    }

    private static final class WebApplicationMapper implements ExceptionMapper<WebApplicationException> {
        @Context
        private ResourceInfo resource;

        @Override
        public Response toResponse(WebApplicationException e) {
            Response response = e.getResponse();
            if (response.getEntity() instanceof ApiError) {
                return response;
            }
            Response.StatusType status = response.getStatusInfo();
            String error = ApiError.codeOf(status.getReasonPhrase());
            Response answer = json(status.getStatusCode(), error, reason(e, status));
            // A 405 says what the route takes.
            return response.getAllowedMethods().isEmpty()
                    ? answer
                    : Response.fromResponse(answer)
                            .allow(response.getAllowedMethods())
                            .build();
        }

        /** What to do about it where the status alone says little; Jersey's own words otherwise. */
        private String reason(WebApplicationException e, Response.StatusType status) {
            if (e instanceof NotSupportedException) {
                return "the body must be JSON: send it with Content-Type: application/json";
            }
            if (e instanceof ForbiddenException) {
                Optional<RolesAllowed> roles = rolesOfTheRoute();
                if (roles.isPresent()) {
                    return "this route takes a token of role "
                            + String.join(" or ", roles.get().value()) + "; the one sent has another role";
                }
            }
            return e.getMessage() == null ? status.getReasonPhrase() : e.getMessage();
        }

        private Optional<RolesAllowed> rolesOfTheRoute() {
            if (resource == null || resource.getResourceMethod() == null) {
                return Optional.empty();
            }
            RolesAllowed onMethod = resource.getResourceMethod().getAnnotation(RolesAllowed.class);
            return Optional.ofNullable(
                    onMethod != null ? onMethod : resource.getResourceClass().getAnnotation(RolesAllowed.class));
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
            if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
                return json(400, "invalid_json", where(mismatch) + " is not of the expected type: " + kind(mismatch));
            }
            return json(400, "invalid_json", "the body is not valid JSON for this request: " + e.getOriginalMessage());
        }
    }

    /** "the body", or the field's path as the client wrote it: {@code "tenant"}, {@code "items[2].id"}. */
    private static String where(MismatchedInputException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.length() == 0 ? "the body" : "\"" + path + "\"";
    }

    /** What JSON the target type reads, in the client's words rather than a Java class name. */
    private static String kind(MismatchedInputException e) {
        Class<?> type = e.getTargetType();
        if (CharSequence.class.isAssignableFrom(type) || type.isEnum() || type == UUID.class) {
            return "a string";
        }
        if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != boolean.class)) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "a JSON object";
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
