package dev.relaybox.service.api;

/**
 * What a free-text path segment (a workflow id, an aggregate id) may hold, as the OpenAPI document states it: the
 * HTTP server itself refuses a path with a control character (400, "Suspicious Path Character") before any resource
 * sees it.
 */
public final class PathSegments {
    public static final String WITHOUT_CONTROL_CHARACTERS = "^[^\\x00-\\x1F\\x7F]+$";

    /**
     * A UUID {@code id} segment, for {@code @Path}: a sibling route's literal segment ({@code /replay}) is then never
     * taken for an id, so another method on it is a 405 naming the allowed ones rather than a 404.
     */
    public static final String ID = "{id: [0-9a-fA-F-]+}";

    private PathSegments() {}
}
