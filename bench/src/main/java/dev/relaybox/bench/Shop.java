package dev.relaybox.bench;

import dev.relaybox.activities.outbound.WebhookSigner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.IntFunction;

/** The example partner "shop": signs Standard Webhooks with its secret and posts them to {@code /webhooks/shop}. */
final class Shop {
    /** config.yml's documented development secret, unless the environment replaces it as in production. */
    static final String SECRET = env("SHOP_WEBHOOK_SECRET", "whsec_cmVsYXlib3gtZGV2ZWxvcG1lbnQtc2VjcmV0LTAwMQ==");

    private final URI uri;
    private final String secret;

    /** With the secret Relaybox was configured with for shop (the pass's own outside embedded mode). */
    Shop(Relaybox relaybox) {
        this(
                relaybox.api("/webhooks/shop"),
                relaybox.config()
                        .getPartners()
                        .get("shop")
                        .getSignature()
                        .secrets()
                        .get(0));
    }

    Shop(URI webhooks) {
        this(webhooks, SECRET);
    }

    private Shop(URI webhooks, String secret) {
        this.uri = webhooks;
        this.secret = secret;
    }

    /** The secret this partner signs with. */
    String secret() {
        return secret;
    }

    static String event(String type, String orderId) {
        return "{\"type\":\"" + type + "\",\"data\":{\"orderId\":\"" + orderId + "\"}}";
    }

    HttpRequest request(String eventId, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        long timestamp = Instant.now().getEpochSecond();
        return HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json")
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", WebhookSigner.signatureHeader(List.of(secret), eventId, timestamp, bytes))
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build();
    }

    static HttpClient client() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** A load worker with its own keep-alive connection; succeeds on 200. */
    Load.Worker poster(IntFunction<String[]> eventIdAndBody) {
        HttpClient client = client();
        return new Load.Worker() {
            @Override
            public boolean call(int index) throws Exception {
                String[] event = eventIdAndBody.apply(index);
                return client.send(request(event[0], event[1]), HttpResponse.BodyHandlers.ofString())
                                .statusCode()
                        == 200;
            }
        };
    }

    static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
