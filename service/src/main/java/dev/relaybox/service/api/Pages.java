package dev.relaybox.service.api;

import jakarta.ws.rs.core.Response;

/**
 * How Relaybox serves its pages and their files: with a Content-Security-Policy that runs only Relaybox's own scripts
 * (a string someone typed can never run as script, even if a bug let it into a page), says who may frame the page,
 * and with no content sniffing and no referrer (a page's address may carry a workflow id or a portal link).
 */
public final class Pages {
    /** The admin pages: their own scripts and styles, framed by nobody. */
    public static final String ADMIN_POLICY =
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

    private Pages() {}

    public static Response served(byte[] body, String type, String contentSecurityPolicy) {
        return Response.ok(body, type)
                .header("Content-Security-Policy", contentSecurityPolicy)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .build();
    }
}
