package dev.relaybox.activities.inbound;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 and the constant-time search for a key that produced one of the presented signatures. */
final class Hmac {
    private static final String ALGORITHM = "HmacSHA256";

    private Hmac() {}

    static byte[] sha256(byte[] key, byte[]... parts) {
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
     * The 1-based position of the first key whose HMAC over {@code signedParts} equals one of
     * {@code presented}, or 0 when none does. Every pair is compared, so timing does not reveal which
     * key or signature came close.
     */
    static int matchingKey(List<byte[]> keys, List<byte[]> presented, byte[]... signedParts) {
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
}
