package dev.relaybox.activities.signing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.activities.inbound.PartnerSignature;
import dev.relaybox.activities.inbound.SignatureScheme;
import dev.relaybox.activities.inbound.SignatureVerifier;
import dev.relaybox.activities.outbound.WebhookSigner;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One {@code whsec_} rule and one HMAC for the signer, the verifier and the {@code receive} command. */
class HmacTest {
    /** The example of the Standard Webhooks spec and its reference libraries. */
    static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    static final String SPEC_TIMESTAMP = "1614265330";
    static final byte[] SPEC_BODY = "{\"test\": 2432232314}".getBytes(UTF_8);
    static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    @Test
    void signsTheSpecExampleAsTheReferenceLibrariesDo() {
        assertThat(WebhookSigner.signatureHeader(
                        List.of(SPEC_SECRET), SPEC_ID, Long.parseLong(SPEC_TIMESTAMP), SPEC_BODY))
                .isEqualTo(SPEC_SIGNATURE);
        assertThat(Hmac.standardWebhooksSigner(
                        List.of(Hmac.secretKey(SPEC_SECRET)),
                        SPEC_ID,
                        SPEC_TIMESTAMP,
                        SPEC_BODY,
                        "v1a,ignored " + SPEC_SIGNATURE))
                .isEqualTo(1);
    }

    @Test
    void whatTheSignerSignsTheVerifierAccepts() {
        String secret = WebhookSigner.newSecret();
        long now = Instant.now().getEpochSecond();
        String header = WebhookSigner.signatureHeader(List.of(secret), "evt-1", now, SPEC_BODY);
        Map<String, String> headers =
                Map.of("webhook-id", "evt-1", "webhook-timestamp", Long.toString(now), "webhook-signature", header);
        PartnerSignature partner =
                new PartnerSignature(SignatureScheme.STANDARD_WEBHOOKS, List.of(secret), 0, null, null);

        assertThat(SignatureVerifier.verify(partner, headers::get, SPEC_BODY, Instant.now())
                        .valid())
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {24, 32, 64})
    void acceptsKeysOfTwentyFourToSixtyFourBytes(int bytes) {
        String secret = Hmac.SECRET_PREFIX + Base64.getEncoder().encodeToString(new byte[bytes]);

        assertThat(Hmac.secretProblem(secret)).isNull();
        assertThat(Hmac.secretKey(secret)).hasSize(bytes);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 23, 65})
    void refusesShorterOrLongerKeysNamingTheLength(int bytes) {
        String secret = Hmac.SECRET_PREFIX + Base64.getEncoder().encodeToString(new byte[bytes]);

        assertThat(Hmac.secretProblem(secret))
                .isEqualTo("must be whsec_ followed by base64 of 24 to 64 bytes, not " + bytes);
    }

    @Test
    void paddingIsOptional() {
        String padded = Hmac.SECRET_PREFIX + Base64.getEncoder().encodeToString(new byte[25]);

        assertThat(padded).endsWith("=");
        assertThat(Hmac.secretKey(padded.replace("=", ""))).hasSize(25);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La-aS_",
                "whsec_ MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "whsec_not*base64"
            })
    void refusesAnythingButWhsecAndStandardBase64(String secret) {
        assertThat(Hmac.secretProblem(secret)).isEqualTo("must be whsec_ followed by base64");
        assertThatThrownBy(() -> Hmac.secretKey(secret))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a signing secret must be whsec_ followed by base64")
                .hasMessageNotContaining(secret);
    }

    @Test
    void refusesNoSecret() {
        assertThat(Hmac.secretProblem(null)).isEqualTo("must be whsec_ followed by base64");
    }

    @Test
    void malformedSignatureEntriesAreSkippedNotFatal() {
        assertThat(Hmac.v1Signatures("v1,*** v2,abc  " + SPEC_SIGNATURE)).hasSize(1);
        assertThat(Hmac.standardWebhooksSigner(
                        List.of(Hmac.secretKey(SPEC_SECRET)),
                        SPEC_ID,
                        SPEC_TIMESTAMP,
                        "{\"test\": 2432232315}".getBytes(UTF_8),
                        SPEC_SIGNATURE))
                .isZero();
    }
}
