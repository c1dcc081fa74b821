package dev.relaybox.service;

import dev.relaybox.service.config.AuthFactory;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signatures as a partner computes them per Standard Webhooks, written here with the JDK alone so that tests do not
 * verify Relaybox's verifier with Relaybox's own signing code.
 */
public final class ShopWebhooks {
    private ShopWebhooks() {}

    /** The {@code webhook-signature} header for the example partner "shop" and its development secret. */
    public static String signature(String eventId, long timestamp, String body) {
        return signature(AuthFactory.DEV_PARTNER_SECRET, eventId, timestamp, body);
    }

    /** The {@code webhook-signature} header: {@code v1,} and the HMAC-SHA256 of {@code id.timestamp.body}. */
    public static String signature(String whsecSecret, String eventId, long timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(
                    Base64.getDecoder().decode(whsecSecret.substring("whsec_".length())), "HmacSHA256"));
            String content = eventId + "." + timestamp + "." + body;
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(content.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
