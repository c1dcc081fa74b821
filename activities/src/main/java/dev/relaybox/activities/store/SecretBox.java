package dev.relaybox.activities.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals short secrets for storage with AES-256-GCM (a random 96-bit nonce per value, a 128-bit tag), as
 * {@code v1:<keyId>:<base64(nonce | ciphertext | tag)>}. The key id (the first 8 hex digits of the key's SHA-256) says
 * which key opens a value, so values sealed under an older key stay readable while a rotation re-seals them; the
 * prefix is authenticated with the value, so it cannot be altered either. New values are always sealed with the
 * current key. Opening a value that was tampered with, or one sealed under a key this box lacks, throws.
 */
public final class SecretBox {
    /** The format's version prefix; a stored secret without it was written before secrets were sealed. */
    public static final String PREFIX = "v1:";

    private static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String currentKeyId;
    private final Map<String, SecretKey> keys;

    private SecretBox(String currentKeyId, Map<String, SecretKey> keys) {
        this.currentKeyId = currentKeyId;
        this.keys = keys;
    }

    /**
     * A box sealing with {@code currentKey} and opening values sealed under it or any of {@code olderKeys}, each the
     * base64 of 32 bytes. Throws {@link IllegalArgumentException} naming the key's position, never its value.
     */
    public static SecretBox of(String currentKey, List<String> olderKeys) {
        Map<String, SecretKey> keys = new LinkedHashMap<>();
        String currentId = add(keys, currentKey, "the key");
        for (int i = 0; i < olderKeys.size(); i++) {
            add(keys, olderKeys.get(i), "old key " + (i + 1));
        }
        return new SecretBox(currentId, Map.copyOf(keys));
    }

    /** A new random key, as {@link #of} reads it. */
    public static String newKey() {
        byte[] key = new byte[KEY_BYTES];
        RANDOM.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    /** The id of the key new values are sealed with. */
    public String currentKeyId() {
        return currentKeyId;
    }

    /** Whether {@code value} is in the sealed format at all (a stored value without it is plaintext). */
    public static boolean isSealed(String value) {
        return value != null && value.startsWith(PREFIX);
    }

    /** Whether {@code sealed} was sealed with the current key, so a rotation can leave it as it is. */
    public boolean sealedWithCurrentKey(String sealed) {
        return isSealed(sealed) && currentKeyId.equals(parse(sealed).keyId());
    }

    public String seal(String plaintext) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        String header = PREFIX + currentKeyId + ":";
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, keys.get(currentKeyId), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(header.getBytes(StandardCharsets.US_ASCII));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return header
                    + Base64.getEncoder()
                            .encodeToString(ByteBuffer.allocate(nonce.length + sealed.length)
                                    .put(nonce)
                                    .put(sealed)
                                    .array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable in this JVM", e);
        }
    }

    public String open(String sealed) {
        if (!isSealed(sealed)) {
            throw new IllegalStateException("a stored secret is not sealed; start Relaybox once (it seals plaintext "
                    + "secrets at start-up) or run 'relaybox secrets rotate'");
        }
        Parsed parsed = parse(sealed);
        SecretKey key = keys.get(parsed.keyId());
        if (key == null) {
            throw new IllegalStateException("a stored secret is sealed under key " + parsed.keyId()
                    + ", which is neither RELAYBOX_SECRETS_KEY (" + currentKeyId
                    + ") nor in RELAYBOX_SECRETS_OLD_KEYS");
        }
        byte[] body = parsed.body();
        if (body.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new IllegalStateException("a stored secret sealed under key " + parsed.keyId() + " is truncated");
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, body, 0, NONCE_BYTES));
            cipher.updateAAD((PREFIX + parsed.keyId() + ":").getBytes(StandardCharsets.US_ASCII));
            return new String(cipher.doFinal(body, NONCE_BYTES, body.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException(
                    "a stored secret sealed under key " + parsed.keyId() + " does not authenticate: it was altered", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable in this JVM", e);
        }
    }

    private record Parsed(String keyId, byte[] body) {}

    private static Parsed parse(String sealed) {
        int colon = sealed.indexOf(':', PREFIX.length());
        if (colon < 0) {
            throw new IllegalStateException("a stored secret has no key id");
        }
        try {
            return new Parsed(
                    sealed.substring(PREFIX.length(), colon),
                    Base64.getDecoder().decode(sealed.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("a stored secret is not valid base64", e);
        }
    }

    private static String add(Map<String, SecretKey> keys, String base64, String which) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64 == null ? "" : base64.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(which + " is not base64");
        }
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException(which + " must be the base64 of " + KEY_BYTES + " random bytes, not "
                    + key.length + " (make one with: head -c 32 /dev/urandom | base64)");
        }
        String id = keyId(key);
        keys.putIfAbsent(id, new SecretKeySpec(key, "AES"));
        return id;
    }

    private static String keyId(byte[] key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key), 0, 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
