package dev.relaybox.service.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Thrown by resources to answer with {@link ApiError}; nothing has been written when it is thrown. */
public final class ApiException extends WebApplicationException {
    public ApiException(int status, String error, String reason) {
        this(Response.status(status), error, reason);
    }

    private ApiException(Response.ResponseBuilder response, String error, String reason) {
        super(
                reason,
                response.type(MediaType.APPLICATION_JSON_TYPE)
                        .entity(new ApiError(error, reason))
                        .build());
    }

    /** A 429: asked again after {@code retryAfterSeconds}, it may be answered. */
    public static ApiException tooManyRequests(String error, String reason, long retryAfterSeconds) {
        return new ApiException(
                Response.status(429).header("Retry-After", Long.toString(retryAfterSeconds)), error, reason);
    }

    public static ApiException badRequest(String error, String reason) {
        return new ApiException(400, error, reason);
    }

    public static ApiException notFound(String error, String reason) {
        return new ApiException(404, error, reason);
    }

    public static ApiException conflict(String error, String reason) {
        return new ApiException(409, error, reason);
    }
}
