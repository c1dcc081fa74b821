package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.List;

/**
 * Bearer tokens, comma-separated so several can be valid during rotation. Admin tokens open
 * {@code /admin/*} and the producer API; producer tokens open only the producer API.
 */
public final class AuthFactory {
    /**
     * Documented development tokens, which the tests configure: accepted only in embedded mode with every listener on
     * loopback. Embedded mode without tokens configured makes its own ({@link EmbeddedCredentials}).
     */
    public static final String DEV_ADMIN_TOKEN = "dev-admin-token";

    public static final String DEV_PRODUCER_TOKEN = "dev-producer-token";

    /** Outside embedded mode: long enough that guessing one over the network is hopeless. */
    public static final int MIN_TOKEN_LENGTH = 32;
    /** The example partner's documented secret in config.yml. */
    public static final String DEV_PARTNER_SECRET = "whsec_cmVsYXlib3gtZGV2ZWxvcG1lbnQtc2VjcmV0LTAwMQ==";

    @JsonProperty
    private String adminTokens = "";

    @JsonProperty
    private String producerTokens = "";

    public List<String> adminTokens() {
        return split(adminTokens);
    }

    public List<String> producerTokens() {
        return split(producerTokens);
    }

    /** Embedded mode: the data directory's own tokens where none are configured. */
    public void useEmbeddedTokensWhereUnset(EmbeddedCredentials credentials) {
        if (adminTokens().isEmpty()) {
            adminTokens = credentials.value("RELAYBOX_ADMIN_TOKENS", EmbeddedCredentials::newToken);
        }
        if (producerTokens().isEmpty()) {
            producerTokens = credentials.value("RELAYBOX_PRODUCER_TOKENS", EmbeddedCredentials::newToken);
        }
    }

    /** Why this configuration must not serve production traffic, or null when it may. */
    public String productionProblem() {
        if (adminTokens().isEmpty() || producerTokens().isEmpty()) {
            return "RELAYBOX_ADMIN_TOKENS and RELAYBOX_PRODUCER_TOKENS must be set outside embedded mode";
        }
        if (adminTokens().contains(DEV_ADMIN_TOKEN)
                || producerTokens().contains(DEV_PRODUCER_TOKEN)
                || adminTokens().contains(DEV_PRODUCER_TOKEN)
                || producerTokens().contains(DEV_ADMIN_TOKEN)) {
            return "the development tokens are accepted only in embedded mode with every listener on loopback; set "
                    + "RELAYBOX_ADMIN_TOKENS and RELAYBOX_PRODUCER_TOKENS";
        }
        if (adminTokens().stream().anyMatch(AuthFactory::tooShort)) {
            return "every token in RELAYBOX_ADMIN_TOKENS must be at least " + MIN_TOKEN_LENGTH
                    + " characters (for example: openssl rand -hex 32)";
        }
        if (producerTokens().stream().anyMatch(AuthFactory::tooShort)) {
            return "every token in RELAYBOX_PRODUCER_TOKENS must be at least " + MIN_TOKEN_LENGTH
                    + " characters (for example: openssl rand -hex 32)";
        }
        return null;
    }

    private static boolean tooShort(String token) {
        return token.length() < MIN_TOKEN_LENGTH;
    }

    /** Null where the configuration leaves the setting empty ({@code ${RELAYBOX_ADMIN_TOKENS:-}}). */
    private static List<String> split(String tokens) {
        if (tokens == null) {
            return List.of();
        }
        return Arrays.stream(tokens.split(","))
                .map(String::trim)
                .filter(t -> !t.isEmpty())
                .toList();
    }
}
