package dev.relaybox.activities.outbound;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** An independent reading of the Standard Webhooks spec, as a receiver would write it: shares no code with Relaybox. */
public final class StandardWebhooksVerifier {
    private StandardWebhooksVerifier() {}

    public static boolean verify(String secret, String id, String timestamp, byte[] body, String signatureHeader)
            throws Exception {
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        byte[] signed = (id + "." + timestamp + "." + new String(body, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
        byte[] expected = mac.doFinal(signed);
        for (String candidate : signatureHeader.split(" ")) {
            String[] parts = candidate.split(",", 2);
            if (parts.length == 2
                    && parts[0].equals("v1")
                    && MessageDigest.isEqual(expected, Base64.getDecoder().decode(parts[1]))) {
                return true;
            }
        }
        return false;
    }
}
