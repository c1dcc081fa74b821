package dev.relaybox.activities.inbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Expected signatures are computed here with {@link Mac} straight from each scheme's published rules,
 * never with the code under test, so a shared misunderstanding cannot make both sides agree.
 */
class SignatureVerifierTest {
    private static final Instant NOW = Instant.ofEpochSecond(1_700_000_000);
    private static final byte[] BODY = "{\"id\":\"evt_1\",\"amount\": 1200}".getBytes(UTF_8);
    private static final byte[] TAMPERED = "{\"id\":\"evt_1\",\"amount\": 9900}".getBytes(UTF_8);

    @Nested
    class StandardWebhooks {
        static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        static final String NEXT_SECRET =
                "whsec_" + Base64.getEncoder().encodeToString("rotated-key-0123456789ab".getBytes(UTF_8));
        static final PartnerSignature CONFIG = config(SECRET);

        static PartnerSignature config(String... secrets) {
            return new PartnerSignature(SignatureScheme.STANDARD_WEBHOOKS, List.of(secrets), 0, null, null);
        }

        /** v1,base64(HMAC(base64decode(secret after whsec_), id.timestamp.body)). */
        static String sign(String secret, String id, long timestamp, byte[] body) {
            byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
            byte[] content = concat((id + "." + timestamp + ".").getBytes(UTF_8), body);
            return "v1," + Base64.getEncoder().encodeToString(hmac(key, content));
        }

        static Function<String, String> request(String id, long timestamp, String signature) {
            return headers(
                    "webhook-id", id, "webhook-timestamp", Long.toString(timestamp), "webhook-signature", signature);
        }

        static Function<String, String> signed(String secret, String id, long timestamp, byte[] body) {
            return request(id, timestamp, sign(secret, id, timestamp, body));
        }

        @Test
        void acceptsThePublishedTestVector() {
            byte[] body = "{\"test\": 2432232314}".getBytes(UTF_8);
            var headers = request(
                    "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");

            var result = SignatureVerifier.verify(CONFIG, headers, body, Instant.ofEpochSecond(1614265330));

            assertThat(result.valid()).as(result.reason()).isTrue();
        }

        @Test
        void acceptsAValidSignature() {
            var headers = signed(SECRET, "msg_1", NOW.getEpochSecond(), BODY);

            assertThat(SignatureVerifier.verify(CONFIG, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void acceptsWhenAnyOfSeveralListedSignaturesMatches() {
            String good = sign(SECRET, "msg_1", NOW.getEpochSecond(), BODY);
            String other = sign(NEXT_SECRET, "msg_1", NOW.getEpochSecond(), TAMPERED);
            var headers = request("msg_1", NOW.getEpochSecond(), "v1a,c2lnbmVk " + other + " " + good);

            assertThat(SignatureVerifier.verify(CONFIG, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void refusesATamperedBody() {
            var headers = signed(SECRET, "msg_1", NOW.getEpochSecond(), BODY);

            var result = SignatureVerifier.verify(CONFIG, headers, TAMPERED, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesASignatureOverADifferentMessageId() {
            var headers = request("msg_2", NOW.getEpochSecond(), sign(SECRET, "msg_1", NOW.getEpochSecond(), BODY));

            assertThat(SignatureVerifier.verify(CONFIG, headers, BODY, NOW).reason())
                    .contains("no signature matches");
        }

        @Test
        void refusesAWrongSecret() {
            var headers = signed(NEXT_SECRET, "msg_1", NOW.getEpochSecond(), BODY);

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @ParameterizedTest
        @ValueSource(longs = {-301, 301, -3600, 86_400})
        void refusesATimestampOutsideToleranceEitherWay(long offset) {
            long timestamp = NOW.getEpochSecond() + offset;
            var headers = signed(SECRET, "msg_1", timestamp, BODY);

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("timestamp outside the 300 s tolerance");
        }

        @ParameterizedTest
        @ValueSource(longs = {-300, 300})
        void acceptsATimestampAtTheEdgeOfTolerance(long offset) {
            long timestamp = NOW.getEpochSecond() + offset;
            var headers = signed(SECRET, "msg_1", timestamp, BODY);

            assertThat(SignatureVerifier.verify(CONFIG, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void honoursAConfiguredTolerance() {
            long timestamp = NOW.getEpochSecond() - 600;
            var headers = signed(SECRET, "msg_1", timestamp, BODY);
            var lenient = new PartnerSignature(SignatureScheme.STANDARD_WEBHOOKS, List.of(SECRET), 900, null, null);

            assertThat(SignatureVerifier.verify(lenient, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @ParameterizedTest
        @ValueSource(strings = {"webhook-id", "webhook-timestamp", "webhook-signature"})
        void refusesAMissingHeaderByName(String absent) {
            var all = Map.of(
                    "webhook-id",
                    "msg_1",
                    "webhook-timestamp",
                    Long.toString(NOW.getEpochSecond()),
                    "webhook-signature",
                    sign(SECRET, "msg_1", NOW.getEpochSecond(), BODY));
            Function<String, String> headers = name -> name.equalsIgnoreCase(absent) ? null : all.get(name);

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("missing " + absent + " header");
        }

        @Test
        void acceptsEitherSecretDuringRotation() {
            var rotating = config(SECRET, NEXT_SECRET);
            long ts = NOW.getEpochSecond();

            var withOld = SignatureVerifier.verify(rotating, signed(SECRET, "msg_1", ts, BODY), BODY, NOW);
            var withNew = SignatureVerifier.verify(rotating, signed(NEXT_SECRET, "msg_1", ts, BODY), BODY, NOW);

            assertThat(withOld.valid()).isTrue();
            assertThat(withOld.reason()).isEqualTo("signature matches secret 1 of 2");
            assertThat(withNew.valid()).isTrue();
            assertThat(withNew.reason()).isEqualTo("signature matches secret 2 of 2");
        }

        @ParameterizedTest
        @ValueSource(strings = {"v1,not*base64", "v1,", "v2,AAAA", "garbage", "v1a,AAAA"})
        void refusesMalformedSignatureHeaderCleanly(String signature) {
            var result = SignatureVerifier.verify(CONFIG, request("msg_1", NOW.getEpochSecond(), signature), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isNotBlank();
        }

        @ParameterizedTest
        @ValueSource(strings = {"soon", "1.7e9", "-1700000000", "+1700000000", "99999999999999999999999"})
        void refusesANonNumericTimestampCleanly(String timestamp) {
            var headers = headers(
                    "webhook-id",
                    "msg_1",
                    "webhook-timestamp",
                    timestamp,
                    "webhook-signature",
                    sign(SECRET, "msg_1", NOW.getEpochSecond(), BODY));

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("webhook-timestamp is not a unix time in seconds");
        }
    }

    @Nested
    class Stripe {
        static final String SECRET = "whsec_stripe_test_secret_one";
        static final String NEXT_SECRET = "whsec_stripe_test_secret_two";
        static final PartnerSignature CONFIG = config(SECRET);

        static PartnerSignature config(String... secrets) {
            return new PartnerSignature(SignatureScheme.STRIPE, List.of(secrets), 0, null, null);
        }

        /** hex(HMAC(secret text as UTF-8, "timestamp.body")). */
        static String sign(String secret, long timestamp, byte[] body) {
            return hex(hmac(secret.getBytes(UTF_8), concat((timestamp + ".").getBytes(UTF_8), body)));
        }

        static Function<String, String> request(String value) {
            return headers("Stripe-Signature", value);
        }

        static Function<String, String> signed(String secret, long timestamp, byte[] body) {
            return request("t=" + timestamp + ",v1=" + sign(secret, timestamp, body));
        }

        @Test
        void acceptsAValidSignature() {
            long ts = NOW.getEpochSecond();
            var result = SignatureVerifier.verify(CONFIG, signed(SECRET, ts, BODY), BODY, NOW);

            assertThat(result.valid()).as(result.reason()).isTrue();
        }

        @Test
        void ignoresV0AndAcceptsAnyMatchingV1() {
            long ts = NOW.getEpochSecond();
            String header = "t=" + ts + ",v1=" + sign(NEXT_SECRET, ts, BODY) + ",v0=" + sign(SECRET, ts, BODY) + ", v1="
                    + sign(SECRET, ts, BODY);

            assertThat(SignatureVerifier.verify(CONFIG, request(header), BODY, NOW)
                            .valid())
                    .isTrue();
        }

        @Test
        void refusesASignatureOnlyInV0() {
            long ts = NOW.getEpochSecond();
            var headers = request("t=" + ts + ",v0=" + sign(SECRET, ts, BODY));

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("Stripe-Signature carries no well-formed v1=<hex> signature");
        }

        @Test
        void usesTheWholeSecretTextAsTheKeyNotItsBase64Decoding() {
            long ts = NOW.getEpochSecond();
            byte[] decodedKey = Base64.getDecoder().decode("stripe/test/secret/one0");
            var secret = "whsec_stripe/test/secret/one0";
            String decodedStyle = hex(hmac(decodedKey, concat((ts + ".").getBytes(UTF_8), BODY)));
            var headers = request("t=" + ts + ",v1=" + decodedStyle);

            var result = SignatureVerifier.verify(config(secret), headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
        }

        @Test
        void refusesATamperedBody() {
            long ts = NOW.getEpochSecond();
            var result = SignatureVerifier.verify(CONFIG, signed(SECRET, ts, BODY), TAMPERED, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAWrongSecret() {
            long ts = NOW.getEpochSecond();
            var result = SignatureVerifier.verify(CONFIG, signed(NEXT_SECRET, ts, BODY), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAnOldTimestampEvenWhenCorrectlySigned() {
            long ts = NOW.getEpochSecond() - 301;
            var result = SignatureVerifier.verify(CONFIG, signed(SECRET, ts, BODY), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("timestamp outside the 300 s tolerance");
        }

        @Test
        void refusesAMissingHeader() {
            var result = SignatureVerifier.verify(CONFIG, name -> null, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("missing Stripe-Signature header");
        }

        @Test
        void acceptsEitherSecretDuringRotation() {
            var rotating = config(SECRET, NEXT_SECRET);
            long ts = NOW.getEpochSecond();

            assertThat(SignatureVerifier.verify(rotating, signed(SECRET, ts, BODY), BODY, NOW)
                            .valid())
                    .isTrue();
            assertThat(SignatureVerifier.verify(rotating, signed(NEXT_SECRET, ts, BODY), BODY, NOW)
                            .valid())
                    .isTrue();
        }

        @ParameterizedTest
        @ValueSource(
                strings = {"v1=abc", "t=,v1=00", "t=later,v1=00", "garbage", "t=1700000000,v1=zz", "t=1700000000,v1=abc"
                })
        void refusesMalformedHeaderCleanly(String value) {
            var result = SignatureVerifier.verify(CONFIG, request(value), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isNotBlank();
        }
    }

    @Nested
    class GitHub {
        static final String SECRET = "It's a Secret to Everybody";
        static final String NEXT_SECRET = "a new secret, rotated in";
        static final PartnerSignature CONFIG = config(SECRET);

        static PartnerSignature config(String... secrets) {
            return new PartnerSignature(SignatureScheme.GITHUB, List.of(secrets), 0, null, null);
        }

        /** sha256=hex(HMAC(secret as UTF-8, body)). */
        static Function<String, String> signed(String secret, byte[] body) {
            return headers("X-Hub-Signature-256", "sha256=" + hex(hmac(secret.getBytes(UTF_8), body)));
        }

        @Test
        void acceptsGitHubsDocumentedExample() {
            // From GitHub's "Validating webhook deliveries" documentation.
            var headers = headers(
                    "X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");

            var result = SignatureVerifier.verify(CONFIG, headers, "Hello, World!".getBytes(UTF_8), NOW);

            assertThat(result.valid()).as(result.reason()).isTrue();
        }

        @Test
        void acceptsAValidSignature() {
            assertThat(SignatureVerifier.verify(CONFIG, signed(SECRET, BODY), BODY, NOW)
                            .valid())
                    .isTrue();
        }

        @Test
        void readsTheHeaderWhateverItsCase() {
            var headers = headers("x-hub-signature-256", "sha256=" + hex(hmac(SECRET.getBytes(UTF_8), BODY)));

            assertThat(SignatureVerifier.verify(CONFIG, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void refusesATamperedBody() {
            var result = SignatureVerifier.verify(CONFIG, signed(SECRET, BODY), TAMPERED, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAWrongSecret() {
            var result = SignatureVerifier.verify(CONFIG, signed(NEXT_SECRET, BODY), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAMissingHeaderEvenWhenTheSha1HeaderIsPresent() {
            var headers = headers("X-Hub-Signature", "sha1=0123456789abcdef0123456789abcdef01234567");

            var result = SignatureVerifier.verify(CONFIG, headers, BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("missing X-Hub-Signature-256 header");
        }

        @Test
        void acceptsEitherSecretDuringRotation() {
            var rotating = config(SECRET, NEXT_SECRET);

            assertThat(SignatureVerifier.verify(rotating, signed(SECRET, BODY), BODY, NOW)
                            .valid())
                    .isTrue();
            assertThat(SignatureVerifier.verify(rotating, signed(NEXT_SECRET, BODY), BODY, NOW)
                            .valid())
                    .isTrue();
        }

        @ParameterizedTest
        @ValueSource(
                strings = {
                    "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
                    "sha256=xyz",
                    "sha256=abc",
                    "sha256="
                })
        void refusesMalformedHeaderCleanly(String value) {
            var result = SignatureVerifier.verify(CONFIG, headers("X-Hub-Signature-256", value), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isNotBlank();
        }
    }

    @Nested
    class HmacSha256 {
        static final String SECRET = "partner-shared-secret";
        static final String NEXT_SECRET = "partner-shared-secret-2";
        static final String HEADER = "X-Partner-Signature";

        static PartnerSignature config(PartnerSignature.Encoding encoding, String... secrets) {
            return new PartnerSignature(SignatureScheme.HMAC_SHA256, List.of(secrets), 0, HEADER, encoding);
        }

        static byte[] mac(String secret, byte[] body) {
            return hmac(secret.getBytes(UTF_8), body);
        }

        @Test
        void acceptsAValidHexSignatureByDefault() {
            var config = config(null, SECRET);

            var result = SignatureVerifier.verify(config, headers(HEADER, hex(mac(SECRET, BODY))), BODY, NOW);

            assertThat(result.valid()).as(result.reason()).isTrue();
        }

        @Test
        void acceptsAValidBase64Signature() {
            var config = config(PartnerSignature.Encoding.BASE64, SECRET);
            var headers = headers(HEADER, Base64.getEncoder().encodeToString(mac(SECRET, BODY)));

            assertThat(SignatureVerifier.verify(config, headers, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void toleratesASha256Prefix() {
            var config = config(PartnerSignature.Encoding.HEX, SECRET);
            var headers = headers(HEADER, "sha256=" + hex(mac(SECRET, BODY)));

            var result = SignatureVerifier.verify(config, headers, BODY, NOW);

            assertThat(result.valid()).isTrue();
        }

        @Test
        void refusesATamperedBody() {
            var config = config(PartnerSignature.Encoding.HEX, SECRET);

            var result = SignatureVerifier.verify(config, headers(HEADER, hex(mac(SECRET, BODY))), TAMPERED, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAWrongSecret() {
            var config = config(PartnerSignature.Encoding.HEX, SECRET);

            var result = SignatureVerifier.verify(config, headers(HEADER, hex(mac(NEXT_SECRET, BODY))), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).contains("no signature matches");
        }

        @Test
        void refusesAMissingHeaderNamingTheConfiguredOne() {
            var config = config(PartnerSignature.Encoding.HEX, SECRET);

            var result = SignatureVerifier.verify(config, headers("X-Other", hex(mac(SECRET, BODY))), BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).isEqualTo("missing X-Partner-Signature header");
        }

        @Test
        void acceptsEitherSecretDuringRotation() {
            var rotating = config(PartnerSignature.Encoding.HEX, SECRET, NEXT_SECRET);

            var withOld = headers(HEADER, hex(mac(SECRET, BODY)));
            var withNew = headers(HEADER, hex(mac(NEXT_SECRET, BODY)));

            assertThat(SignatureVerifier.verify(rotating, withOld, BODY, NOW).valid())
                    .isTrue();
            assertThat(SignatureVerifier.verify(rotating, withNew, BODY, NOW).valid())
                    .isTrue();
        }

        @Test
        void refusesHexWhenBase64IsConfigured() {
            var config = config(PartnerSignature.Encoding.BASE64, SECRET);

            var result = SignatureVerifier.verify(config, headers(HEADER, hex(mac(SECRET, BODY))), BODY, NOW);

            assertThat(result.valid()).isFalse();
        }

        @Test
        void refusesMalformedSignatureCleanly() {
            var hexConfig = config(PartnerSignature.Encoding.HEX, SECRET);
            var base64Config = config(PartnerSignature.Encoding.BASE64, SECRET);

            assertThat(SignatureVerifier.verify(hexConfig, headers(HEADER, "not hex"), BODY, NOW)
                            .reason())
                    .isEqualTo("X-Partner-Signature is not valid hex");
            assertThat(SignatureVerifier.verify(base64Config, headers(HEADER, "not*base64"), BODY, NOW)
                            .reason())
                    .isEqualTo("X-Partner-Signature is not valid base64");
        }
    }

    @Nested
    class PartnerConfiguration {
        private final ObjectMapper json = new ObjectMapper();

        @Test
        void bindsFromConfigurationWithDefaults() throws Exception {
            var config = json.readValue(
                    """
                    {"scheme": "standard-webhooks", "secrets": ["%s", "%s"]}
                    """.formatted(StandardWebhooks.SECRET, StandardWebhooks.NEXT_SECRET), PartnerSignature.class);

            assertThat(config.scheme()).isEqualTo(SignatureScheme.STANDARD_WEBHOOKS);
            assertThat(config.secrets()).containsExactly(StandardWebhooks.SECRET, StandardWebhooks.NEXT_SECRET);
            assertThat(config.toleranceSeconds()).isEqualTo(300);
            assertThat(config.encoding()).isEqualTo(PartnerSignature.Encoding.HEX);
            assertThat(config.problem()).isNull();
        }

        @Test
        void bindsEverySchemeNameAndTheHmacOptions() throws Exception {
            var config = json.readValue("""
                    {"scheme": "hmac-sha256", "secrets": "only-one", "toleranceSeconds": 60,
                     "header": "X-Signature", "encoding": "base64"}
                    """, PartnerSignature.class);

            assertThat(config)
                    .isEqualTo(new PartnerSignature(
                            SignatureScheme.HMAC_SHA256,
                            List.of("only-one"),
                            60,
                            "X-Signature",
                            PartnerSignature.Encoding.BASE64));
            for (String name : List.of("standard-webhooks", "stripe", "github", "hmac-sha256")) {
                assertThat(json.readValue("\"" + name + "\"", SignatureScheme.class)
                                .configName())
                        .isEqualTo(name);
            }
        }

        @Test
        void refusesAnUnknownSchemeWhenBinding() {
            String unknown = "{\"scheme\": \"sha1\", \"secrets\": [\"s\"]}";

            assertThatThrownBy(() -> json.readValue(unknown, PartnerSignature.class))
                    .isInstanceOf(InvalidFormatException.class);
        }

        @Test
        void validConfigurationsHaveNoProblem() {
            assertThat(StandardWebhooks.config(StandardWebhooks.SECRET).problem())
                    .isNull();
            assertThat(Stripe.config(Stripe.SECRET).problem()).isNull();
            assertThat(GitHub.config(GitHub.SECRET).problem()).isNull();
            assertThat(HmacSha256.config(null, HmacSha256.SECRET).problem()).isNull();
        }

        @Test
        void namesWhatIsWrong() {
            assertThat(new PartnerSignature(null, List.of("s"), 0, null, null).problem())
                    .contains("scheme is required");
            assertThat(new PartnerSignature(SignatureScheme.GITHUB, null, 0, null, null).problem())
                    .isEqualTo("github signatures need at least one secret");
            assertThat(new PartnerSignature(SignatureScheme.STRIPE, List.of("whsec_a", " "), 0, null, null).problem())
                    .isEqualTo("secret 2 is blank");
            assertThat(new PartnerSignature(SignatureScheme.HMAC_SHA256, List.of("s"), 0, null, null).problem())
                    .isEqualTo("hmac-sha256 signatures need the header that carries them");
            assertThat(new PartnerSignature(SignatureScheme.GITHUB, List.of("s"), 0, "X-Sig", null).problem())
                    .contains("header applies only to hmac-sha256");
            assertThat(new PartnerSignature(SignatureScheme.STRIPE, List.of("s"), -5, null, null).problem())
                    .isEqualTo("toleranceSeconds must be positive");
        }

        @ParameterizedTest
        @ValueSource(strings = {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_not*base64", "sk_live_abc"})
        void standardWebhooksSecretMustBeWhsecBase64(String secret) {
            var problem =
                    StandardWebhooks.config(StandardWebhooks.SECRET, secret).problem();

            assertThat(problem).startsWith("standard-webhooks secret 2 must be whsec_ followed by base64");
        }

        @Test
        void verifyingWithAnInvalidConfigurationRefusesInsteadOfThrowing() {
            var config = new PartnerSignature(SignatureScheme.HMAC_SHA256, List.of("s"), 0, null, null);

            var result = SignatureVerifier.verify(config, name -> "00", BODY, NOW);

            assertThat(result.valid()).isFalse();
            assertThat(result.reason()).startsWith("signature configuration is invalid");
        }

        @Test
        void keepsSecretsOutOfToString() {
            assertThat(Stripe.config(Stripe.SECRET, Stripe.NEXT_SECRET).toString())
                    .doesNotContain(Stripe.SECRET)
                    .contains("2 redacted");
        }
    }

    // --- independent reference implementation of the primitives every scheme uses ---

    static byte[] hmac(byte[] key, byte[] content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(content);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static byte[] concat(byte[] first, byte[] second) {
        byte[] joined = new byte[first.length + second.length];
        System.arraycopy(first, 0, joined, 0, first.length);
        System.arraycopy(second, 0, joined, first.length, second.length);
        return joined;
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** A case-insensitive header lookup, as the HTTP layer provides. */
    static Function<String, String> headers(String... namesAndValues) {
        Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return map::get;
    }
}
