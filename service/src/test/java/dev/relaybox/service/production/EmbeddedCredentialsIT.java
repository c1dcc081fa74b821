package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.ScratchDirectories;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.EmbeddedCredentials;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's first start: the jar with the shipped configuration and no tokens or partner secret in the environment
 * makes its own, in the data directory, readable by the owner only: a reverse proxy that publishes the loopback port
 * publishes nothing anyone knows. The development tokens and the example partner's development secret open nothing
 * then, and a restart keeps what the first start made.
 */
class EmbeddedCredentialsIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void theFirstStartMakesCredentialsThatOpenTheApiAndTheInboxWhereTheDevelopmentOnesDoNot() throws Exception {
        Path data = ScratchDirectories.create("relaybox-it-credentials");
        Map<String, String> environment = EmbeddedJar.environment(data);
        environment.remove("RELAYBOX_ADMIN_TOKENS");
        environment.remove("RELAYBOX_PRODUCER_TOKENS");
        environment.remove("SHOP_WEBHOOK_SECRET");
        String api = "http://127.0.0.1:" + environment.get("PORT");
        Path file = data.resolve("postgres").resolve(EmbeddedCredentials.FILE);

        Map<String, String> made;
        try (JavaProcess first = EmbeddedJar.start("credentials-first", environment)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
            made = lines(file);
            assertThat(made.keySet())
                    .containsExactly("RELAYBOX_ADMIN_TOKENS", "RELAYBOX_PRODUCER_TOKENS", "SHOP_WEBHOOK_SECRET");
            assertThat(made.get("RELAYBOX_ADMIN_TOKENS")).startsWith("rbx_").hasSizeGreaterThan(32);
            assertThat(made.get("SHOP_WEBHOOK_SECRET"))
                    .startsWith("whsec_")
                    .isNotEqualTo(AuthFactory.DEV_PARTNER_SECRET);

            assertThat(get(api + "/admin/endpoints", TestApp.ADMIN_TOKEN)).isEqualTo(401);
            assertThat(get(api + "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
            assertThat(get(api + "/entities/order/1", TestApp.PRODUCER_TOKEN)).isEqualTo(401);
            assertThat(get(api + "/entities/order/1", made.get("RELAYBOX_PRODUCER_TOKENS")))
                    .isNotEqualTo(401);
            assertThat(shopWebhook(api, AuthFactory.DEV_PARTNER_SECRET, "evt-dev"))
                    .isEqualTo(401);
            assertThat(shopWebhook(api, made.get("SHOP_WEBHOOK_SECRET"), "evt-made"))
                    .isEqualTo(200);
        }

        try (JavaProcess second = EmbeddedJar.start("credentials-second", environment)) {
            assertThat(lines(file)).isEqualTo(made);
            assertThat(get(api + "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
        }
    }

    private static int get(String url, String token) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer " + token)
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static int shopWebhook(String api, String secret, String eventId) throws Exception {
        String body = "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + eventId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create(api + "/webhooks/shop"))
                                .header("content-type", "application/json")
                                .header("webhook-id", eventId)
                                .header("webhook-timestamp", Long.toString(timestamp))
                                .header("webhook-signature", ShopWebhooks.signature(secret, eventId, timestamp, body))
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static Map<String, String> lines(Path file) throws Exception {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] keyValue = line.split("=", 2);
            values.put(keyValue[0], keyValue[1]);
        }
        return values;
    }
}
