package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relaybox.store.SecretBox;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Configurations that must not serve traffic stop start-up, before anything starts, with a reason that names the problem. */
class StartupChecksTest {
    static final ConfigOverride[] PRODUCTION = {
        ConfigOverride.config("database.url", "jdbc:postgresql://localhost:1/relaybox"),
        ConfigOverride.config("temporal.address", "localhost:1"),
    };

    static final ConfigOverride[] REAL_TOKENS = {
        ConfigOverride.config("auth.adminTokens", "a-real-admin-token-0123456789abcdef"),
        ConfigOverride.config("auth.producerTokens", "a-real-producer-token-0123456789abcdef"),
    };

    @Test
    void productionWithTheDevelopmentTokensRefusesToStart() {
        assertThatThrownBy(() -> start(PRODUCTION))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("development tokens")
                .hasMessageContaining("RELAYBOX_ADMIN_TOKENS");
    }

    @Test
    void productionWithATokenShorterThan32CharactersRefusesToStartNamingTheVariable() {
        assertThatThrownBy(() -> start(
                        PRODUCTION[0],
                        PRODUCTION[1],
                        ConfigOverride.config("auth.adminTokens", "a-real-admin-token-0123456789abcdef,short-admin"),
                        REAL_TOKENS[1]))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("RELAYBOX_ADMIN_TOKENS must be at least 32 characters");
        assertThatThrownBy(() -> start(
                        PRODUCTION[0],
                        PRODUCTION[1],
                        REAL_TOKENS[0],
                        ConfigOverride.config("auth.producerTokens", "short-producer")))
                .hasMessageContaining("RELAYBOX_PRODUCER_TOKENS must be at least 32 characters");
    }

    @Test
    void productionWithTheExamplePartnersDevelopmentSecretRefusesToStart() {
        assertThatThrownBy(() -> start(PRODUCTION[0], PRODUCTION[1], REAL_TOKENS[0], REAL_TOKENS[1]))
                .hasMessageContaining("partner 'shop' uses the development secret")
                .hasMessageContaining("set SHOP_WEBHOOK_SECRET");
    }

    @Test
    void productionWithoutASecretsKeyRefusesToStartNamingIt() {
        assertThatThrownBy(() -> start(
                        PRODUCTION[0],
                        PRODUCTION[1],
                        REAL_TOKENS[0],
                        REAL_TOKENS[1],
                        ConfigOverride.config(
                                "partners.shop.signature.secrets", "whsec_" + "c2hvcC1zZWNyZXQtZm9yLWEtdGVzdC0wMDAx")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("RELAYBOX_SECRETS_KEY")
                .hasMessageContaining("head -c 32 /dev/urandom | base64");
    }

    @Test
    void externalDatabaseWithEmbeddedTemporalIsProductionAndRefusesTheDevelopmentTokens() {
        assertThatThrownBy(() -> start(PRODUCTION[0]))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("RELAYBOX_ADMIN_TOKENS");
    }

    @Test
    void externalTemporalWithEmbeddedDatabaseIsProductionAndRefusesTheDevelopmentPartnerSecret() {
        assertThatThrownBy(() -> start(PRODUCTION[1], REAL_TOKENS[0], REAL_TOKENS[1]))
                .hasMessageContaining("partner 'shop' uses the development secret")
                .hasMessageContaining("SHOP_WEBHOOK_SECRET");
    }

    @Test
    void externalTemporalWithEmbeddedDatabaseRefusesAPrivateNetworkEndpoint() {
        assertThatThrownBy(() -> start(
                        PRODUCTION[1],
                        REAL_TOKENS[0],
                        REAL_TOKENS[1],
                        ConfigOverride.config(
                                "partners.shop.signature.secrets", "whsec_" + "c2hvcC1zZWNyZXQtZm9yLWEtdGVzdC0wMDAx"),
                        ConfigOverride.config("secrets.key", SecretBox.newKey()),
                        ConfigOverride.config("alerts.endpointUrl", "http://127.0.0.1:9/alerts"),
                        ConfigOverride.config(
                                "alerts.endpointSecret", "whsec_" + "bG9jYWwtZW5kcG9pbnQtc2VjcmV0LTAwMDE=")))
                .hasMessageContaining("endpoint relaybox-alerts in config")
                .hasMessageContaining("ALLOWED_PRIVATE_NETWORKS");
    }

    @Test
    void embeddedModeWithTheApiReachableBeyondLoopbackRefusesTheDevelopmentTokens() {
        assertThatThrownBy(() -> start(ConfigOverride.config("server.applicationConnectors[0].bindHost", "0.0.0.0")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("0.0.0.0")
                .hasMessageContaining("BIND_HOST")
                .hasMessageContaining("development tokens");
    }

    @Test
    void embeddedModeWithTheAdminPortReachableBeyondLoopbackRefusesTheDevelopmentTokens() {
        assertThatThrownBy(() -> start(ConfigOverride.config("server.adminConnectors[0].bindHost", "0.0.0.0")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("ADMIN_BIND_HOST")
                .hasMessageContaining("development tokens");
    }

    @Test
    void embeddedModeReachableBeyondLoopbackWithRealTokensRefusesTheDevelopmentPartnerSecret() {
        assertThatThrownBy(() -> start(
                        ConfigOverride.config("server.applicationConnectors[0].bindHost", "0.0.0.0"),
                        REAL_TOKENS[0],
                        REAL_TOKENS[1]))
                .hasMessageContaining("partner 'shop' uses the development secret")
                .hasMessageContaining("BIND_HOST");
    }

    @Test
    void theRemovedAllowPrivateNetworksSettingRefusesToStartNamingItsReplacement() {
        assertThatThrownBy(() -> start(ConfigOverride.config("delivery.allowPrivateNetworks", "true")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("ALLOW_PRIVATE_NETWORKS")
                .hasMessageContaining("ALLOWED_PRIVATE_NETWORKS");
    }

    @Test
    void anAllowedPrivateNetworkThatIsNotACidrBlockRefusesToStartNamingIt() {
        assertThatThrownBy(
                        () -> start(ConfigOverride.config("delivery.allowedPrivateNetworks", "10.0.0.0/8,10.0.0/33")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("ALLOWED_PRIVATE_NETWORKS")
                .hasMessageContaining("10.0.0/33");
    }

    @Test
    void unknownRoleRefusesToStartNamingTheVariable() {
        assertThatThrownBy(() -> start(ConfigOverride.config("roles", "api,workers")))
                .hasMessageContaining("refusing to start")
                .hasMessageContaining("unknown role 'workers' in RELAYBOX_ROLES");
    }

    @Test
    void stateMachineWithATypoRefusesToStartNamingIt() {
        assertThatThrownBy(
                        () -> start(ConfigOverride.config("stateMachines.order.transitions.order\\.paid.to", "payed")))
                .hasMessageContaining("state machine 'order'")
                .hasMessageContaining("payed");
    }

    @Test
    void partnerWithoutAStateMachineForItsAggregateRefusesToStart() {
        assertThatThrownBy(() -> start(ConfigOverride.config("partners.shop.aggregateType", "invoice")))
                .hasMessageContaining("partner 'shop': no state machine for aggregate type 'invoice'");
    }

    @Test
    void routeToAnEndpointThatDoesNotExistRefusesToStartNamingIt() throws Exception {
        String shipped = Files.readString(Path.of(TestApp.CONFIG));
        Path config = Files.createTempFile("relaybox-route", ".yml");
        Files.writeString(config, shipped.replace("\npartners:\n", """

                partners:
                  github:
                    signature: {scheme: github, secrets: ["a-github-secret"]}
                    eventId: {header: X-GitHub-Delivery}
                    trustUnsignedEventIdHeader: true
                    eventType: {pointer: /action}
                    aggregateId: {pointer: /repository/full_name}
                    aggregateType: repository
                    routes:
                      - {eventTypes: ["*"], endpoints: [github-handler]}
                """));
        DropwizardTestSupport<RelayboxConfiguration> app = new DropwizardTestSupport<>(
                RelayboxApplication.class,
                config.toString(),
                TestApp.overrides(TestApp.freshDataDirectory(), TestApp.freePort()));

        assertThatThrownBy(() -> {
                    try {
                        app.before();
                    } finally {
                        app.after();
                    }
                })
                .hasMessageContaining("refusing to start: partner 'github' routes events to endpoint 'github-handler',"
                        + " which does not exist");
    }

    @Test
    void deferralThatNeedsTooManyRechecksRefusesToStartSayingWhatWouldDo() {
        assertThatThrownBy(() -> start(
                        ConfigOverride.config("inbox.recheckInterval", "1m"),
                        ConfigOverride.config("inbox.maxDeferral", "30d")))
                .hasMessageContaining(
                        "refusing to start: inbox: a deferral of up to 720h rechecked every 1m takes "
                                + "43200 rechecks, more than 20000; raise recheckInterval to at least 2m10s or lower maxDeferral");
    }

    private static void start(ConfigOverride... overrides) throws Exception {
        DropwizardTestSupport<RelayboxConfiguration> app =
                TestApp.support(TestApp.freshDataDirectory(), TestApp.freePort(), overrides);
        try {
            app.before();
        } finally {
            app.after();
        }
    }
}
