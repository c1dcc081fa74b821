package dev.relaybox.activities.inbound;

import com.fasterxml.jackson.annotation.JsonValue;

/** How a partner signs the webhooks it sends us. */
public enum SignatureScheme {
    /** https://www.standardwebhooks.com: {@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}. */
    STANDARD_WEBHOOKS("standard-webhooks"),
    /** {@code Stripe-Signature: t=<ts>,v1=<hex>}. */
    STRIPE("stripe"),
    /** {@code X-Hub-Signature-256: sha256=<hex>} over the body. */
    GITHUB("github"),
    /** A configured header carrying the HMAC-SHA256 of the body, hex or base64. */
    HMAC_SHA256("hmac-sha256");

    private final String configName;

    SignatureScheme(String configName) {
        this.configName = configName;
    }

    /** The name partner configuration uses; Jackson reads and writes the enum by it. */
    @JsonValue
    public String configName() {
        return configName;
    }
}
