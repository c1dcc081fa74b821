package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.RelayboxApplication;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShippedConfig;
import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.config.TemporalFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The temporal section is checked before anything connects, and a wrong setting is refused with its name. */
class TemporalConnectionTest {
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();

    @TempDir
    static Path dir;

    static TestCertificates ca;
    static TestCertificates.Issued client;
    static TestCertificates.Issued otherClient;

    @BeforeAll
    static void certificates() {
        ca = TestCertificates.authority(dir, "relaybox");
        client = ca.client("worker");
        otherClient = ca.client("other-worker");
    }

    @Test
    void noSecuritySettingsMeanPlaintextToTheAddress() {
        TemporalConnection connection = TemporalConnection.from(remote(Map.of()));

        assertThat(usesTls(connection)).isFalse();
        assertThat(connection.target()).isEqualTo("temporal.example:7233");
    }

    @Test
    void clientCertificateAndKeyGiveMutualTls() {
        TemporalConnection connection = TemporalConnection.from(remote(Map.of(
                "tls",
                Map.of(
                        "clientCert",
                        client.cert().toString(),
                        "clientKey",
                        client.key().toString(),
                        "serverCa",
                        ca.caCert().toString()))));

        assertThat(usesTls(connection)).isTrue();
        assertThat(connection.description()).contains("client certificate CN=worker", "server CA");
    }

    @Test
    void anApiKeyTurnsTlsOnByDefault() {
        TemporalConnection connection = TemporalConnection.from(remote(Map.of("apiKey", "secret-key")));

        assertThat(usesTls(connection)).isTrue();
        assertThat(connection.description()).isEqualTo("TLS, API key").doesNotContain("secret-key");
    }

    @Test
    void anApiKeyWithTlsSwitchedOffGoesInPlaintext() {
        TemporalConnection connection =
                TemporalConnection.from(remote(Map.of("apiKey", "secret-key", "tls", Map.of("enabled", false))));

        assertThat(usesTls(connection)).isFalse();
        assertThat(connection.sendsApiKeyInPlaintext()).isTrue();
        assertThat(connection.workflowServiceStubsOptions().build().getEnableHttps())
                .isFalse();
    }

    @Test
    void tlsSwitchedOnAloneTrustsTheDefaultCas() {
        TemporalConnection connection = TemporalConnection.from(remote(Map.of("tls", Map.of("enabled", true))));

        assertThat(usesTls(connection)).isTrue();
        assertThat(connection.description()).isEqualTo("TLS");
    }

    @Test
    void certificateWithoutKeyIsRefusedNamingBoth() {
        assertThatThrownBy(() -> TemporalConnection.from(
                        remote(Map.of("tls", Map.of("clientCert", client.cert().toString())))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TEMPORAL_TLS_CERT) is set without temporal.tls.clientKey (TEMPORAL_TLS_KEY)");
    }

    @Test
    void keyWithoutCertificateIsRefused() {
        assertThatThrownBy(() -> TemporalConnection.from(
                        remote(Map.of("tls", Map.of("clientKey", client.key().toString())))))
                .hasMessageContaining("TEMPORAL_TLS_KEY) is set without temporal.tls.clientCert (TEMPORAL_TLS_CERT)");
    }

    @Test
    void missingFileIsRefusedNamingSettingAndPath() {
        assertThatThrownBy(() -> TemporalConnection.from(remote(
                        Map.of("tls", Map.of("serverCa", dir.resolve("nope.pem").toString())))))
                .hasMessage("temporal.tls.serverCa (TEMPORAL_TLS_CA): " + dir.resolve("nope.pem") + " does not exist");
    }

    @Test
    void fileWithoutCertificatesIsRefused() throws Exception {
        Path notPem = Files.writeString(dir.resolve("notes.txt"), "not a certificate\n");

        assertThatThrownBy(() -> TemporalConnection.from(remote(Map.of("tls", Map.of("serverCa", notPem.toString())))))
                .hasMessageStartingWith("temporal.tls.serverCa (TEMPORAL_TLS_CA): " + notPem)
                .hasMessageContaining("certificate");
    }

    @Test
    void keyOfAnotherCertificateIsRefused() {
        assertThatThrownBy(() -> TemporalConnection.from(remote(Map.of(
                        "tls",
                        Map.of(
                                "clientCert",
                                client.cert().toString(),
                                "clientKey",
                                otherClient.key().toString())))))
                .hasMessageContaining("TEMPORAL_TLS_KEY): " + otherClient.key() + " is not the private key of the "
                        + "certificate in " + client.cert());
    }

    @Test
    void traditionalKeyFormatIsRefusedWithTheConversionCommand() throws Exception {
        Path traditional = dir.resolve("traditional.key");
        TestCertificates.openssl(dir, "ec", "-in", client.key().toString(), "-out", traditional.toString());
        assertThat(Files.readString(traditional)).startsWith("-----BEGIN EC PRIVATE KEY-----");

        assertThatThrownBy(() -> TemporalConnection.from(remote(Map.of(
                        "tls", Map.of("clientCert", client.cert().toString(), "clientKey", traditional.toString())))))
                .hasMessageContaining("traditional 'EC PRIVATE KEY'")
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt -in " + traditional);
    }

    @Test
    void tlsFilesWithTheEmbeddedServerAreRefused() {
        assertThatThrownBy(() -> TemporalConnection.from(temporal(Map.of(
                        "address",
                        "embedded",
                        "apiKey",
                        "k",
                        "tls",
                        Map.of("serverCa", ca.caCert().toString())))))
                .hasMessageStartingWith("temporal.tls.serverCa (TEMPORAL_TLS_CA), temporal.apiKey (TEMPORAL_API_KEY) "
                        + "are for a remote Temporal cluster, but temporal.address (TEMPORAL_ADDRESS) is embedded");
    }

    @Test
    void tlsSwitchedOffWhileTlsFilesAreGivenIsRefused() {
        assertThatThrownBy(() -> TemporalConnection.from(remote(Map.of(
                        "tls", Map.of("enabled", false, "serverCa", ca.caCert().toString())))))
                .hasMessageStartingWith("temporal.tls.enabled (TEMPORAL_TLS) is false, but temporal.tls.serverCa "
                        + "(TEMPORAL_TLS_CA) is set");
    }

    @Test
    void apiKeyWithWhitespaceIsRefused() {
        assertThatThrownBy(() -> TemporalConnection.from(remote(Map.of("apiKey", "Bearer abc"))))
                .hasMessage("temporal.apiKey (TEMPORAL_API_KEY) contains whitespace; give the key alone");
    }

    @Test
    void configYmlReadsTheDocumentedEnvironmentVariables() throws Exception {
        Map<String, String> environment = Map.of(
                "TEMPORAL_ADDRESS",
                "temporal.example:7233",
                "TEMPORAL_TLS_CERT",
                client.cert().toString(),
                "TEMPORAL_TLS_KEY",
                client.key().toString(),
                "TEMPORAL_TLS_CA",
                ca.caCert().toString(),
                "TEMPORAL_TLS_SERVER_NAME",
                "frontend.internal",
                "TEMPORAL_API_KEY",
                "key-123");

        TemporalConnection connection =
                TemporalConnection.from(ShippedConfig.read(environment).getTemporal());

        assertThat(usesTls(connection)).isTrue();
        assertThat(connection.description())
                .isEqualTo("TLS, client certificate CN=worker, server CA from " + ca.caCert()
                        + ", server name frontend.internal, API key");
    }

    @Test
    void configYmlWithoutTheVariablesPicksTheEngineByTheCliAndKeepsItsStateBesideTheDatabase() throws Exception {
        TemporalFactory temporal = ShippedConfig.read(Map.of()).getTemporal();

        assertThat(temporal.getEmbeddedEngine()).isEqualTo(TemporalFactory.EmbeddedEngine.AUTO);
        assertThat(temporal.embeddedDataDirectory(Path.of("/srv/relaybox/postgres")))
                .isEqualTo(Path.of("/srv/relaybox/temporal"));
        assertThat(temporal.embeddedUiPort()).hasValue(8233);
        assertThat(temporal.uiBaseUrl()).isEmpty();
        assertThat(temporal.getUiBaseUrl()).isEqualTo("http://localhost:8233");
    }

    @Test
    void theEmbeddedEngineAndItsUiAreChosenFromTheEnvironment() throws Exception {
        TemporalFactory temporal = ShippedConfig.read(Map.of(
                        "TEMPORAL_EMBEDDED_ENGINE", "in-process",
                        "TEMPORAL_EMBEDDED_UI_PORT", "off",
                        "TEMPORAL_EMBEDDED_DATA_DIR", "/var/lib/relaybox-temporal"))
                .getTemporal();

        assertThat(temporal.getEmbeddedEngine()).isEqualTo(TemporalFactory.EmbeddedEngine.IN_PROCESS);
        assertThat(temporal.embeddedUiPort()).isEmpty();
        assertThat(temporal.embeddedDataDirectory(Path.of("/srv/relaybox/postgres")))
                .isEqualTo(Path.of("/var/lib/relaybox-temporal"));
        assertThat(ShippedConfig.read(Map.of("TEMPORAL_EMBEDDED_UI_PORT", "0"))
                        .getTemporal()
                        .embeddedUiPort())
                .isEmpty();
    }

    @Test
    void configYmlWithoutTheVariablesIsEmbeddedAndPlaintext() throws Exception {
        TemporalConnection connection =
                TemporalConnection.from(ShippedConfig.read(Map.of()).getTemporal());

        assertThat(usesTls(connection)).isFalse();
    }

    @Test
    void aMissingKeyFileStopsStartUpBeforeAnythingRunsNamingIt() {
        Path missing = dir.resolve("missing.key");
        DropwizardTestSupport<RelayboxConfiguration> app = new DropwizardTestSupport<>(
                RelayboxApplication.class,
                ShippedConfig.CONFIG_YML.toAbsolutePath().toString(),
                ConfigOverride.config("temporal.address", "temporal.example:7233"),
                ConfigOverride.config("temporal.tls.clientCert", client.cert().toString()),
                ConfigOverride.config("temporal.tls.clientKey", missing.toString()));
        try {
            assertThatThrownBy(app::before)
                    .hasStackTraceContaining(
                            "temporal.tls.clientKey (TEMPORAL_TLS_KEY): " + missing + " does not exist");
        } finally {
            app.after();
        }
    }

    private static TemporalFactory remote(Map<String, Object> settings) {
        Map<String, Object> all = new HashMap<>(settings);
        all.put("address", "temporal.example:7233");
        return temporal(all);
    }

    static TemporalFactory temporal(Map<String, Object> settings) {
        return MAPPER.convertValue(settings, TemporalFactory.class);
    }

    /** What the SDK's stubs are given: TLS when they carry an SSL context. */
    private static boolean usesTls(TemporalConnection connection) {
        return connection.workflowServiceStubsOptions().build().getSslContext() != null;
    }
}
