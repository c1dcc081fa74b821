package dev.relaybox.service.api;

import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * How Relaybox serves its pages and their files: with a Content-Security-Policy that runs only Relaybox's own scripts
 * (a string someone typed can never run as script, even if a bug let it into a page), says who may frame the page,
 * and with no content sniffing and no referrer (a page's address may carry a workflow id or a portal link).
 */
public final class Pages {
    /** The admin pages: their own scripts and styles, framed by nobody. */
    public static final String ADMIN_POLICY =
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

    /** The charts' script, served to the admin page and the portal alike. */
    public static final String CHART_SCRIPT = "/shared/chart.js";

    private Pages() {}

    /** A page or one of its files, read once from the class path by its absolute name. */
    public static byte[] file(String name) {
        try (InputStream in = Pages.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An admin page or one of its files. */
    public static Response admin(byte[] body, String type) {
        return served(body, type, ADMIN_POLICY);
    }

    public static Response served(byte[] body, String type, String contentSecurityPolicy) {
        return Response.ok(body, type)
                .header("Content-Security-Policy", contentSecurityPolicy)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .build();
    }
}
