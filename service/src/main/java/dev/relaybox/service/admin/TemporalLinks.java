package dev.relaybox.service.admin;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Links from admin views into the Temporal UI, so an operator goes from a row to its workflow in one click. */
public record TemporalLinks(String uiBaseUrl, String namespace) {
    public String workflow(String workflowId) {
        return trimmed() + "/namespaces/" + encode(namespace) + "/workflows/" + encode(workflowId);
    }

    private String trimmed() {
        return uiBaseUrl.endsWith("/") ? uiBaseUrl.substring(0, uiBaseUrl.length() - 1) : uiBaseUrl;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
