package dev.relaybox.service.admin;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Links from admin views to a row's workflow, so an operator goes from a row to its history in one click. The
 * Temporal UI cannot attach to the in-process engine of embedded mode ({@code embeddedServer}), so there the link
 * goes to Relaybox's own history view; the embedded dev server has the real UI.
 */
public record TemporalLinks(String uiBaseUrl, String namespace, boolean embeddedServer) {
    /** The Temporal UI's page for the workflow, or Relaybox's history view when the server is embedded. */
    public String workflow(String workflowId) {
        return embeddedServer ? history(workflowId) : temporalUi(workflowId);
    }

    /** The Temporal UI's page for the workflow; null when the server is embedded (no UI can attach to it). */
    public String temporalUi(String workflowId) {
        return embeddedServer
                ? null
                : trimmed() + "/namespaces/" + encode(namespace) + "/workflows/" + encode(workflowId);
    }

    /** Relaybox's own view of the workflow's history, on the admin page's origin. */
    public static String history(String workflowId) {
        return "/admin/workflows/" + encode(workflowId);
    }

    private String trimmed() {
        return uiBaseUrl.endsWith("/") ? uiBaseUrl.substring(0, uiBaseUrl.length() - 1) : uiBaseUrl;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
