package dev.relaybox.activities.outbound;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs outbound requests per the Standard Webhooks spec: {@code v1,<base64 HMAC-SHA256 of "id.timestamp.body">}
 * keyed by the base64 part of a {@code whsec_} secret. During rotation every current secret signs and the
 * signatures are sent space-separated, so receivers holding either secret accept the request.
 */
public final class WebhookSigner {
    public static final String SECRET_PREFIX = "whsec_";

    private WebhookSigner() {}

    public static String signatureHeader(List<String> secrets, String webhookId, long timestampSeconds, byte[] body) {
        return secrets.stream()
                .map(secret -> "v1," + sign(secret, webhookId, timestampSeconds, body))
                .collect(Collectors.joining(" "));
    }

    /** The current secret, plus the previous one while its rotation grace period lasts. */
    public static List<String> signingSecrets(String secret, String previousSecret, java.time.Instant previousExpiresAt,
            java.time.Instant now) {
        if (previousSecret != null && previousExpiresAt != null && now.isBefore(previousExpiresAt)) {
            return List.of(secret, previousSecret);
        }
        return List.of(secret);
    }

    static String sign(String secret, String webhookId, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key(secret), "HmacSHA256"));
            mac.update((webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** Decodes a {@code whsec_<base64>} secret; throws {@link IllegalArgumentException} naming the problem. */
    public static byte[] key(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            throw new IllegalArgumentException("a signing secret must look like whsec_<base64>");
        }
        byte[] key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        if (key.length < 24 || key.length > 64) {
            throw new IllegalArgumentException("a signing secret must decode to 24 to 64 bytes, not " + key.length);
        }
        return key;
    }

    /** A fresh random secret of 32 bytes. */
    public static String newSecret() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(bytes);
    }
}
