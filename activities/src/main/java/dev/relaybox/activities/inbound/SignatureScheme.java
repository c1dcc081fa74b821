package dev.relaybox.activities.inbound;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Set;

/** How a partner signs the webhooks it sends us. */
public enum SignatureScheme {
    /** https://www.standardwebhooks.com: {@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}. */
    STANDARD_WEBHOOKS("standard-webhooks", true, "webhook-id", "webhook-timestamp"),
    /** {@code Stripe-Signature: t=<ts>,v1=<hex>}: the timestamp and the body. */
    STRIPE("stripe", true),
    /** {@code X-Hub-Signature-256: sha256=<hex>} over the body alone; {@code X-GitHub-Delivery} is not signed. */
    GITHUB("github", false),
    /** A configured header carrying the HMAC-SHA256 of the body alone, hex or base64. */
    HMAC_SHA256("hmac-sha256", false);

    private final String configName;
    private final boolean signsTimestamp;
    private final Set<String> signedHeaders;

    SignatureScheme(String configName, boolean signsTimestamp, String... signedHeaders) {
        this.configName = configName;
        this.signsTimestamp = signsTimestamp;
        this.signedHeaders = Set.of(signedHeaders);
    }

    /** Whether the signature covers this header's value (besides the body, which every scheme signs). */
    public boolean signsHeader(String name) {
        return name != null && signedHeaders.contains(name.trim().toLowerCase(Locale.ROOT));
    }

    /**
     * Whether a signed timestamp bounds how long a captured request verifies ({@code toleranceSeconds}); without
     * one it verifies forever.
     */
    public boolean signsTimestamp() {
        return signsTimestamp;
    }

    /** The name partner configuration uses; Jackson reads and writes the enum by it. */
    @JsonValue
    public String configName() {
        return configName;
    }
}
