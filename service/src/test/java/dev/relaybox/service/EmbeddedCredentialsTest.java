package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.EmbeddedCredentials;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode with no tokens or partner secret configured (the shipped configuration) makes its own on the first
 * start, in the data directory, readable by the owner only: a reverse proxy that publishes the loopback port
 * publishes nothing anyone knows. The development tokens and the example partner's development secret open nothing
 * then, and a restart keeps what it made.
 */
class EmbeddedCredentialsTest {
    static final ConfigOverride[] UNSET = {
        ConfigOverride.config("auth.adminTokens", ""),
        ConfigOverride.config("auth.producerTokens", ""),
        ConfigOverride.config("partners.shop.signature.secrets", "")
    };

    @Test
    void theFirstStartMakesCredentialsThatOpenTheApiAndTheInboxWhereTheDevelopmentOnesDoNot() throws Exception {
        Path data = TestApp.freshDataDirectory();
        int temporalPort = TestApp.freePort();
        Map<String, String> made;
        DropwizardTestSupport<RelayboxConfiguration> first = TestApp.support(data, temporalPort, UNSET);
        first.before();
        try {
            Path file = data.resolve(EmbeddedCredentials.FILE);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
            made = lines(file);
            assertThat(made.keySet())
                    .containsExactly("RELAYBOX_ADMIN_TOKENS", "RELAYBOX_PRODUCER_TOKENS", "SHOP_WEBHOOK_SECRET");
            assertThat(made.get("RELAYBOX_ADMIN_TOKENS")).startsWith("rbx_").hasSizeGreaterThan(32);
            assertThat(made.get("SHOP_WEBHOOK_SECRET"))
                    .startsWith("whsec_")
                    .isNotEqualTo(AuthFactory.DEV_PARTNER_SECRET);

            Api api = new Api(first);
            assertThat(status(api, "/admin/endpoints", TestApp.ADMIN_TOKEN)).isEqualTo(401);
            assertThat(status(api, "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
            assertThat(status(api, "/entities/order/1", made.get("RELAYBOX_PRODUCER_TOKENS")))
                    .isNotEqualTo(401);
            assertThat(status(api, "/entities/order/1", TestApp.PRODUCER_TOKEN)).isEqualTo(401);
            assertThat(shopWebhook(api, AuthFactory.DEV_PARTNER_SECRET, "evt-dev"))
                    .isEqualTo(401);
            assertThat(shopWebhook(api, made.get("SHOP_WEBHOOK_SECRET"), "evt-made"))
                    .isEqualTo(200);
        } finally {
            first.after();
        }

        DropwizardTestSupport<RelayboxConfiguration> second = TestApp.support(data, temporalPort, UNSET);
        second.before();
        try {
            assertThat(lines(data.resolve(EmbeddedCredentials.FILE))).isEqualTo(made);
            assertThat(status(new Api(second), "/admin/endpoints", made.get("RELAYBOX_ADMIN_TOKENS")))
                    .isEqualTo(200);
        } finally {
            second.after();
        }
    }

    private static int shopWebhook(Api api, String secret, String eventId) {
        String body = "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + eventId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        return api.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(secret, eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON))
                .getStatus();
    }

    private static int status(Api api, String path, String token) {
        return api.request(path, token).get().getStatus();
    }

    private static Map<String, String> lines(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        return lines.stream()
                .map(line -> line.split("=", 2))
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1], (a, b) -> b, LinkedHashMap::new));
    }
}
