package dev.relaybox.activities.inbound;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.activities.signing.Hmac;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How one partner signs its webhooks, bound from configuration. Several secrets may be listed while a
 * partner rotates; a signature made with any of them is accepted. Check {@link #problem()} at startup.
 *
 * @param scheme which signing convention the partner follows
 * @param secrets the shared secrets; a single YAML scalar is read as a one-element list
 * @param toleranceSeconds how far a signed timestamp may be from our clock, either way; 0 or absent means 300
 * @param header for {@code hmac-sha256} only: the header carrying the signature
 * @param encoding for {@code hmac-sha256} only: how the signature is written; absent means hex
 */
public record PartnerSignature(
        SignatureScheme scheme,

        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        List<String> secrets,

        long toleranceSeconds,
        String header,
        Encoding encoding) {

    public static final long DEFAULT_TOLERANCE_SECONDS = 300;

    public enum Encoding {
        @JsonProperty("hex")
        HEX,
        @JsonProperty("base64")
        BASE64
    }

    public PartnerSignature {
        // Nulls are kept so that problem() can name a blank entry instead of the binding failing obscurely.
        secrets = secrets == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(secrets));
        toleranceSeconds = toleranceSeconds == 0 ? DEFAULT_TOLERANCE_SECONDS : toleranceSeconds;
        encoding = encoding == null ? Encoding.HEX : encoding;
    }

    /** What is wrong with this configuration, or null when it can verify signatures. Never contains a secret. */
    public String problem() {
        if (scheme == null) {
            return "scheme is required (standard-webhooks, stripe, github or hmac-sha256)";
        }
        if (secrets.isEmpty()) {
            return scheme.configName() + " signatures need at least one secret";
        }
        for (int i = 0; i < secrets.size(); i++) {
            String secret = secrets.get(i);
            if (secret == null || secret.isBlank()) {
                return "secret " + (i + 1) + " is blank";
            }
            String secretProblem = scheme == SignatureScheme.STANDARD_WEBHOOKS ? Hmac.secretProblem(secret) : null;
            if (secretProblem != null) {
                return "standard-webhooks secret " + (i + 1) + " " + secretProblem;
            }
        }
        if (toleranceSeconds < 0) {
            return "toleranceSeconds must be positive";
        }
        boolean hasHeader = header != null && !header.isBlank();
        if (scheme == SignatureScheme.HMAC_SHA256 && !hasHeader) {
            return "hmac-sha256 signatures need the header that carries them";
        }
        if (scheme != SignatureScheme.HMAC_SHA256 && hasHeader) {
            // The other schemes have fixed headers; a configured one would be silently ignored.
            return "header applies only to hmac-sha256; the " + scheme.configName() + " scheme has fixed headers";
        }
        return null;
    }

    /** Secrets are kept out of logs and exception messages. */
    @Override
    public String toString() {
        return "PartnerSignature[scheme=" + scheme + ", secrets=" + secrets.size() + " redacted, toleranceSeconds="
                + toleranceSeconds + ", header=" + header + ", encoding=" + encoding + "]";
    }
}
