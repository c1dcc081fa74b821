package dev.relaybox.store;

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
 * Seals short secrets with AES-256-GCM (a random 96-bit nonce per value, a 128-bit tag), as
 * {@code v2:<keyId>:<base64(nonce | ciphertext | tag)>}. The key id (the first 8 hex digits of the key's SHA-256) says
 * which key opens a value, so values sealed under an older key stay readable while a rotation re-seals them; the
 * prefix is authenticated with the value, so it cannot be altered either, and so is the value's {@link Purpose}: a
 * stored secret never opens as a portal token, nor a token as a stored secret, although one key seals both. New
 * values are always sealed with the current key. Values sealed before purposes ({@code v1:}) still open, for any
 * purpose, until a rotation re-seals them. Opening a value that was tampered with, one sealed for another purpose, or
 * one sealed under a key this box lacks, throws.
 */
public final class SecretBox {
    /** The format's version prefix; a stored secret without it (or {@link #UNBOUND_PREFIX}) is plaintext. */
    public static final String PREFIX = "v2:";

    /** Values sealed before a value's purpose was bound to it. */
    static final String UNBOUND_PREFIX = "v1:";

    /** What a value is for, authenticated with it. */
    public enum Purpose {
        /** A column of the database: an endpoint's signing secret or header values. */
        STORED_SECRET("stored-secret"),
        /** A portal link's session and expiry. */
        PORTAL_TOKEN("portal-token");

        private final String label;

        Purpose(String label) {
            this.label = label;
        }
    }

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
        return value != null && (value.startsWith(PREFIX) || value.startsWith(UNBOUND_PREFIX));
    }

    /**
     * Whether {@code sealed} was sealed with the current key and its purpose, so a rotation can leave it as it is.
     */
    public boolean sealedWithCurrentKey(String sealed) {
        return sealed != null
                && sealed.startsWith(PREFIX)
                && currentKeyId.equals(parse(sealed).keyId());
    }

    /** Seals a {@link Purpose#STORED_SECRET}. */
    public String seal(String plaintext) {
        return seal(plaintext, Purpose.STORED_SECRET);
    }

    public String seal(String plaintext, Purpose purpose) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        String header = PREFIX + currentKeyId + ":";
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, keys.get(currentKeyId), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associatedData(header, purpose));
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

    /** Opens a {@link Purpose#STORED_SECRET}. */
    public String open(String sealed) {
        return open(sealed, Purpose.STORED_SECRET);
    }

    public String open(String sealed, Purpose purpose) {
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
            cipher.updateAAD(associatedData(parsed.version() + parsed.keyId() + ":", purpose));
            return new String(cipher.doFinal(body, NONCE_BYTES, body.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException(
                    "a stored secret sealed under key " + parsed.keyId()
                            + " does not authenticate: it was altered, or sealed for another purpose",
                    e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable in this JVM", e);
        }
    }

    /** The header as written, and for values of this format the purpose after it. */
    private static byte[] associatedData(String header, Purpose purpose) {
        String bound = header.startsWith(UNBOUND_PREFIX) ? header : header + purpose.label;
        return bound.getBytes(StandardCharsets.US_ASCII);
    }

    private record Parsed(String version, String keyId, byte[] body) {}

    private static Parsed parse(String sealed) {
        int colon = sealed.indexOf(':', PREFIX.length());
        if (colon < 0) {
            throw new IllegalStateException("a stored secret has no key id");
        }
        try {
            return new Parsed(
                    sealed.substring(0, PREFIX.length()),
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
