package dev.relaybox.activities.inbound;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.relaybox.activities.signing.Hmac;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Checks an inbound webhook against its partner's signing scheme. The signature covers the body bytes
 * exactly as received, so callers must pass the raw body, never re-serialised JSON. Anything malformed
 * in the request is a refusal with a reason, never an exception.
 */
public final class SignatureVerifier {
    private static final String NO_MATCH =
            "no signature matches the request body; check the signing secret " + "and that the body is sent unmodified";

    private SignatureVerifier() {}

    /**
     * @param header case-insensitive header lookup returning null when the header is absent
     * @param now our clock, against which signed timestamps are held to the configured tolerance
     */
    public static Verification verify(
            PartnerSignature config, Function<String, String> header, byte[] rawBody, Instant now) {
        String problem = config.problem();
        if (problem != null) {
            return Verification.refused("signature configuration is invalid: " + problem);
        }
        return switch (config.scheme()) {
            case STANDARD_WEBHOOKS -> standardWebhooks(config, header, rawBody, now);
            case STRIPE -> stripe(config, header, rawBody, now);
            case GITHUB -> github(config, header, rawBody);
            case HMAC_SHA256 -> hmacSha256(config, header, rawBody);
        };
    }

    private static Verification standardWebhooks(
            PartnerSignature config, Function<String, String> header, byte[] body, Instant now) {
        String id = value(header, "webhook-id");
        if (id == null) {
            return missing("webhook-id");
        }
        String timestamp = value(header, "webhook-timestamp");
        if (timestamp == null) {
            return missing("webhook-timestamp");
        }
        String signature = value(header, "webhook-signature");
        if (signature == null) {
            return missing("webhook-signature");
        }
        String late = timestampProblem("webhook-timestamp", timestamp, config.toleranceSeconds(), now);
        if (late != null) {
            return Verification.refused(late);
        }
        if (Hmac.v1Signatures(signature).isEmpty()) {
            return Verification.refused("webhook-signature carries no well-formed v1,<base64> signature");
        }
        List<byte[]> keys = config.secrets().stream().map(Hmac::secretKey).toList();
        // The timestamp is signed as the header text, not re-formatted from the parsed number.
        return outcome(Hmac.standardWebhooksSigner(keys, id, timestamp, body, signature), keys.size());
    }

    private static Verification stripe(
            PartnerSignature config, Function<String, String> header, byte[] body, Instant now) {
        String value = value(header, "Stripe-Signature");
        if (value == null) {
            return missing("Stripe-Signature");
        }
        String timestamp = null;
        List<byte[]> presented = new ArrayList<>();
        for (String item : value.split(",")) {
            int eq = item.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String key = item.substring(0, eq).trim();
            String text = item.substring(eq + 1).trim();
            if (key.equals("t") && timestamp == null) {
                timestamp = text;
            } else if (key.equals("v1")) {
                // v0 and any future scheme are ignored, as Stripe's own libraries do.
                byte[] decoded = Encodings.hex(text);
                if (decoded != null) {
                    presented.add(decoded);
                }
            }
        }
        if (timestamp == null) {
            return Verification.refused("Stripe-Signature carries no t=<timestamp>");
        }
        String late = timestampProblem("Stripe-Signature timestamp", timestamp, config.toleranceSeconds(), now);
        if (late != null) {
            return Verification.refused(late);
        }
        if (presented.isEmpty()) {
            return Verification.refused("Stripe-Signature carries no well-formed v1=<hex> signature");
        }
        // Stripe uses the whole secret text, whsec_ prefix included, as the key.
        List<byte[]> keys = utf8(config.secrets());
        return outcome(Hmac.matchingKey(keys, presented, (timestamp + ".").getBytes(UTF_8), body), keys.size());
    }

    private static Verification github(PartnerSignature config, Function<String, String> header, byte[] body) {
        String name = "X-Hub-Signature-256";
        String value = value(header, name);
        if (value == null) {
            return missing(name);
        }
        if (!value.startsWith("sha256=")) {
            return Verification.refused(name + " must be sha256=<hex>");
        }
        byte[] presented = Encodings.hex(value.substring("sha256=".length()));
        if (presented == null) {
            return Verification.refused(name + " is not valid hex");
        }
        List<byte[]> keys = utf8(config.secrets());
        return outcome(Hmac.matchingKey(keys, List.of(presented), body), keys.size());
    }

    private static Verification hmacSha256(PartnerSignature config, Function<String, String> header, byte[] body) {
        String name = config.header();
        String value = value(header, name);
        if (value == null) {
            return missing(name);
        }
        // Some senders label the digest GitHub-style; the label carries no information.
        if (value.regionMatches(true, 0, "sha256=", 0, "sha256=".length())) {
            value = value.substring("sha256=".length());
        }
        boolean hex = config.encoding() == PartnerSignature.Encoding.HEX;
        byte[] presented = hex ? Encodings.hex(value) : Encodings.base64(value);
        if (presented == null) {
            return Verification.refused(name + " is not valid " + (hex ? "hex" : "base64"));
        }
        List<byte[]> keys = utf8(config.secrets());
        return outcome(Hmac.matchingKey(keys, List.of(presented), body), keys.size());
    }

    /** Why the signed timestamp is unacceptable, or null when it is within tolerance either way. */
    private static String timestampProblem(String name, String timestamp, long toleranceSeconds, Instant now) {
        // Digits only: a sign or a 19-digit value would otherwise parse oddly or overflow.
        if (!timestamp.matches("[0-9]{1,18}")) {
            return name + " is not a unix time in seconds";
        }
        long skew = Math.abs(now.getEpochSecond() - Long.parseLong(timestamp));
        if (skew > toleranceSeconds) {
            return "timestamp outside the " + toleranceSeconds + " s tolerance (" + name + " is " + skew
                    + " s from our clock); a replayed or delayed request is refused";
        }
        return null;
    }

    private static String value(Function<String, String> header, String name) {
        String value = header.apply(name);
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static Verification missing(String name) {
        return Verification.refused("missing " + name + " header");
    }

    private static Verification outcome(int matchingSecret, int secretCount) {
        return matchingSecret > 0 ? Verification.accepted(matchingSecret, secretCount) : Verification.refused(NO_MATCH);
    }

    private static List<byte[]> utf8(List<String> secrets) {
        return secrets.stream().map(secret -> secret.getBytes(UTF_8)).toList();
    }
}
