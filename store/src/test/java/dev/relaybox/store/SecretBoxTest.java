package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Sealing and opening secrets, and which key opens what, without a database. */
class SecretBoxTest {
    static final String KEY = SecretBox.newKey();
    static final String OTHER_KEY = SecretBox.newKey();

    @Test
    void aSealedSecretOpensToItselfAndNeverShowsIt() {
        SecretBox box = SecretBox.of(KEY, List.of());
        String secret = "whsec_c2VhbGVkLXNlY3JldC1mb3ItdGhlLXRlc3Q=";

        String sealed = box.seal(secret);

        assertThat(sealed)
                .startsWith(SecretBox.PREFIX + box.currentKeyId() + ":")
                .doesNotContain("c2VhbGVk");
        assertThat(box.open(sealed)).isEqualTo(secret);
        // A fresh nonce each time: equal secrets are not recognisable in the table.
        assertThat(box.seal(secret)).isNotEqualTo(sealed);
        // 12 bytes of nonce, the ciphertext, a 16-byte tag.
        byte[] body = Base64.getDecoder().decode(sealed.substring(sealed.lastIndexOf(':') + 1));
        assertThat(body).hasSize(12 + secret.length() + 16);
    }

    @Test
    void aValueSealedUnderAnOldKeyOpensWhileThatKeyIsListedAndNotAfter() {
        String sealedOld = SecretBox.of(OTHER_KEY, List.of()).seal("old secret");
        SecretBox rotating = SecretBox.of(KEY, List.of(OTHER_KEY));

        assertThat(rotating.open(sealedOld)).isEqualTo("old secret");
        assertThat(rotating.sealedWithCurrentKey(sealedOld)).isFalse();
        assertThat(rotating.sealedWithCurrentKey(rotating.seal("new"))).isTrue();
        assertThatThrownBy(() -> SecretBox.of(KEY, List.of()).open(sealedOld))
                .hasMessageContaining("RELAYBOX_SECRETS_OLD_KEYS")
                .hasMessageContaining(SecretBox.of(OTHER_KEY, List.of()).currentKeyId());
    }

    @Test
    void anAlteredValueOrKeyIdIsRefused() {
        SecretBox box = SecretBox.of(KEY, List.of(OTHER_KEY));
        String sealed = box.seal("secret");
        String body = sealed.substring(sealed.lastIndexOf(':') + 1);
        byte[] bytes = Base64.getDecoder().decode(body);
        bytes[bytes.length - 1] ^= 1;
        String flipped = sealed.substring(0, sealed.lastIndexOf(':') + 1)
                + Base64.getEncoder().encodeToString(bytes);
        String otherId = SecretBox.PREFIX + SecretBox.of(OTHER_KEY, List.of()).currentKeyId() + ":" + body;

        assertThatThrownBy(() -> box.open(flipped)).hasMessageContaining("altered");
        assertThatThrownBy(() -> box.open(otherId)).hasMessageContaining("altered");
        assertThatThrownBy(() -> box.open("whsec_plaintext")).hasMessageContaining("not sealed");
    }

    @Test
    void aValueOpensOnlyForThePurposeItWasSealedFor() {
        SecretBox box = SecretBox.of(KEY, List.of());
        String token = box.seal("7f0c…|1765000000", SecretBox.Purpose.PORTAL_TOKEN);
        String stored = box.seal("7f0c…|1765000000");

        assertThat(box.open(token, SecretBox.Purpose.PORTAL_TOKEN)).isEqualTo("7f0c…|1765000000");
        assertThat(box.open(stored)).isEqualTo("7f0c…|1765000000");
        // A stored value someone chose cannot be passed off as a portal link, nor a link stored as a secret.
        assertThatThrownBy(() -> box.open(stored, SecretBox.Purpose.PORTAL_TOKEN))
                .hasMessageContaining("another purpose");
        assertThatThrownBy(() -> box.open(token)).hasMessageContaining("another purpose");
    }

    @Test
    void aValueSealedBeforePurposesStillOpensAndARotationSealsItAgain() throws Exception {
        SecretBox box = SecretBox.of(KEY, List.of());
        String legacy = sealedAsBefore(KEY, box.currentKeyId(), "whsec_b2xkLXNlY3JldA==");

        assertThat(SecretBox.isSealed(legacy)).isTrue();
        assertThat(box.open(legacy)).isEqualTo("whsec_b2xkLXNlY3JldA==");
        assertThat(box.sealedWithCurrentKey(legacy)).isFalse();
    }

    /** As release 1.0 sealed: {@code v1:<keyId>:}, the header alone as associated data. */
    private static String sealedAsBefore(String key, String keyId, String plaintext) throws Exception {
        byte[] nonce = new byte[12];
        new SecureRandom().nextBytes(nonce);
        String header = "v1:" + keyId + ":";
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(
                Cipher.ENCRYPT_MODE,
                new SecretKeySpec(Base64.getDecoder().decode(key), "AES"),
                new GCMParameterSpec(128, nonce));
        cipher.updateAAD(header.getBytes(StandardCharsets.US_ASCII));
        byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
        return header
                + Base64.getEncoder()
                        .encodeToString(ByteBuffer.allocate(nonce.length + sealed.length)
                                .put(nonce)
                                .put(sealed)
                                .array());
    }

    @Test
    void aKeyThatIsNotTheBase64OfThirtyTwoBytesIsRefusedWithoutShowingIt() {
        String short16 = Base64.getEncoder().encodeToString(new byte[16]);

        assertThatThrownBy(() -> SecretBox.of(short16, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32 random bytes, not 16")
                .hasMessageNotContaining(short16);
        assertThatThrownBy(() -> SecretBox.of(KEY, List.of("not base64!")))
                .hasMessageContaining("old key 1 is not base64");
    }
}
