package dev.relaybox.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Relaybox's admin API, as an operator would call it. */
final class Admin {
    static final String TOKEN =
            Shop.env("RELAYBOX_ADMIN_TOKENS", "dev-admin-token").split(",")[0].trim();

    /** {@code http://host:port}, the API's base. */
    private final URI api;

    private final String token;
    private final HttpClient client = Shop.client();

    /** With the admin token Relaybox was configured with (the pass's own outside embedded mode). */
    Admin(Relaybox relaybox) {
        this(relaybox.api(""), relaybox.config().getAuth().adminTokens().get(0));
    }

    Admin(URI api) {
        this(api, TOKEN);
    }

    private Admin(URI api, String token) {
        this.api = api;
        this.token = token;
    }

    /** Registers an endpoint for {@code eventTypes}; returns its id. */
    String registerEndpoint(String name, String url, String eventTypesJson) throws Exception {
        return registerEndpoint(name, url, eventTypesJson, null);
    }

    /** As above, publishing to the broker {@code destinationJson} describes (null: an HTTP endpoint). */
    String registerEndpoint(String name, String url, String eventTypesJson, String destinationJson) throws Exception {
        String body = "{\"name\":\"" + name + "\",\"url\":\"" + url + "\",\"eventTypes\":" + eventTypesJson
                + (destinationJson == null ? "" : ",\"destination\":" + destinationJson) + "}";
        HttpResponse<String> answer = client.send(
                request("/admin/endpoints")
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 201) {
            throw new IllegalStateException(
                    "POST /admin/endpoints answered " + answer.statusCode() + ": " + answer.body());
        }
        return answer.body().replaceAll("(?s).*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
    }

    /** Disables an endpoint, so later runs against a shared database do not deliver to a receiver that is gone. */
    void disableEndpoint(String id) throws Exception {
        client.send(
                request("/admin/endpoints/" + id)
                        .header("content-type", "application/json")
                        .method(
                                "PATCH",
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"enabled\":false,\"disabledReason\":\"benchmark finished\"}"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(api.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("authorization", "Bearer " + token);
    }
}
