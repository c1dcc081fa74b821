package dev.relaybox.activities;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * An endpoint URL as logs, dead-letter log lines and alerts show it: scheme, host and port only. Receivers often
 * put a capability token in the path or query ({@code /hooks/T0K3N}, {@code ?key=...}), and whoever reads the logs
 * must not be able to call the receiver as Relaybox; the admin API, behind its token, shows the whole URL.
 */
public final class RedactedUrl {
    private RedactedUrl() {}

    public static String of(String url) {
        if (url == null) {
            return null;
        }
        try {
            URI uri = new URI(url);
            if (uri.getScheme() == null || uri.getHost() == null) {
                return "(unparseable URL)";
            }
            boolean more = (uri.getRawPath() != null
                            && !uri.getRawPath().isEmpty()
                            && !uri.getRawPath().equals("/"))
                    || uri.getRawQuery() != null
                    || uri.getRawFragment() != null;
            String port = uri.getPort() == -1 ? "" : ":" + uri.getPort();
            return uri.getScheme() + "://" + uri.getHost() + port + (more ? "/…" : "/");
        } catch (URISyntaxException e) {
            return "(unparseable URL)";
        }
    }
}
