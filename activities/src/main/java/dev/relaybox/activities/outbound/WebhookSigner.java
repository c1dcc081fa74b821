package dev.relaybox.activities.outbound;

import dev.relaybox.activities.signing.Hmac;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Signs outbound requests per the Standard Webhooks spec: {@code v1,<base64 HMAC-SHA256 of "id.timestamp.body">}
 * keyed by the base64 part of a {@code whsec_} secret. During rotation every current secret signs and the
 * signatures are sent space-separated, so receivers holding either secret accept the request.
 */
public final class WebhookSigner {
    private WebhookSigner() {}

    public static String signatureHeader(List<String> secrets, String webhookId, long timestampSeconds, byte[] body) {
        return secrets.stream()
                .map(secret -> "v1," + sign(secret, webhookId, timestampSeconds, body))
                .collect(Collectors.joining(" "));
    }

    /** The current secret, plus the previous one while its rotation grace period lasts. */
    public static List<String> signingSecrets(
            String secret, String previousSecret, Instant previousExpiresAt, Instant now) {
        if (previousSecret != null && previousExpiresAt != null && now.isBefore(previousExpiresAt)) {
            return List.of(secret, previousSecret);
        }
        return List.of(secret);
    }

    static String sign(String secret, String webhookId, long timestampSeconds, byte[] body) {
        return Base64.getEncoder()
                .encodeToString(Hmac.standardWebhooks(
                        Hmac.secretKey(secret), webhookId, Long.toString(timestampSeconds), body));
    }

    /** A fresh random secret of 32 bytes. */
    public static String newSecret() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Hmac.SECRET_PREFIX + Base64.getEncoder().encodeToString(bytes);
    }
}
