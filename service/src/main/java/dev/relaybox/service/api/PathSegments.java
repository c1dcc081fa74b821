package dev.relaybox.service.api;

/**
 * What a free-text path segment (a workflow id, an aggregate id) may hold, as the OpenAPI document states it: the
 * HTTP server itself refuses a path with a control character (400, "Suspicious Path Character") before any resource
 * sees it.
 */
public final class PathSegments {
    public static final String WITHOUT_CONTROL_CHARACTERS = "^[^\\x00-\\x1F\\x7F]+$";

    private PathSegments() {}
}
