package dev.relaybox.activities.signing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 for every signature Relaybox makes or checks: the outbound signer, the inbound verifier and the
 * {@code receive} command. Standard Webhooks secrets are {@code whsec_} followed by the standard base64 (padding
 * optional) of a 24 to 64 byte key, as the spec asks; the same rule holds for secrets Relaybox signs with and
 * for secrets partners sign with, so a secret one side accepts the other accepts too.
 */
public final class Hmac {
    public static final String SECRET_PREFIX = "whsec_";
    public static final int MIN_KEY_BYTES = 24;
    public static final int MAX_KEY_BYTES = 64;
    private static final String ALGORITHM = "HmacSHA256";

    private Hmac() {}

    public static byte[] sha256(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime provides " + ALGORITHM, e);
        }
    }

    /**
     * The 1-based position of the first key whose HMAC over {@code signedParts} equals one of {@code presented},
     * or 0 when none does. Every pair is compared, so timing does not reveal which key or signature came close.
     */
    public static int matchingKey(List<byte[]> keys, List<byte[]> presented, byte[]... signedParts) {
        int match = 0;
        for (int i = 0; i < keys.size(); i++) {
            byte[] expected = sha256(keys.get(i), signedParts);
            for (byte[] candidate : presented) {
                if (MessageDigest.isEqual(expected, candidate) && match == 0) {
                    match = i + 1;
                }
            }
        }
        return match;
    }

    /** What is wrong with a {@code whsec_} secret, or null when it holds a usable key. Never repeats the secret. */
    public static String secretProblem(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            return "must be whsec_ followed by base64";
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            return "must be whsec_ followed by base64";
        }
        if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
            return "must be whsec_ followed by base64 of " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES + " bytes, not "
                    + key.length;
        }
        return null;
    }

    /** The key inside a {@code whsec_} secret; throws {@link IllegalArgumentException} naming the problem. */
    public static byte[] secretKey(String secret) {
        String problem = secretProblem(secret);
        if (problem != null) {
            throw new IllegalArgumentException("a signing secret " + problem);
        }
        return Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    }

    /** The Standard Webhooks signature: HMAC-SHA256 of {@code id.timestamp.body}, the timestamp as sent. */
    public static byte[] standardWebhooks(byte[] key, String webhookId, String timestamp, byte[] body) {
        return sha256(key, (webhookId + "." + timestamp + ".").getBytes(UTF_8), body);
    }

    /**
     * The {@code v1} signatures of a {@code webhook-signature} header ({@code v1,<base64>} entries, space
     * separated). Other versions (v1a, asymmetric) and malformed entries are skipped: they are not ours to check.
     */
    public static List<byte[]> v1Signatures(String header) {
        List<byte[]> signatures = new ArrayList<>();
        for (String entry : header.split(" +")) {
            if (entry.startsWith("v1,")) {
                try {
                    signatures.add(Base64.getDecoder().decode(entry.substring(3)));
                } catch (IllegalArgumentException malformed) {
                    // Not a signature anyone could have made; the others may still match.
                }
            }
        }
        return signatures;
    }

    /** The 1-based position of the key that signed this Standard Webhooks request, or 0 when none did. */
    public static int standardWebhooksSigner(
            List<byte[]> keys, String webhookId, String timestamp, byte[] body, String signatureHeader) {
        return matchingKey(
                keys, v1Signatures(signatureHeader), (webhookId + "." + timestamp + ".").getBytes(UTF_8), body);
    }
}
