package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.uber.m3.tally.NoopScope;
import dev.relaybox.service.PingWorkflow;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.config.TemporalFactory;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.DescribeNamespaceResponse;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relaybox reaches Temporal through a real TLS-terminating gRPC proxy (Debian's nginx, {@code grpc_pass}) in front
 * of the real Temporal server ({@code temporal server start-dev}), with certificates made by openssl for this run. nginx listens three
 * times: mutual TLS; mutual TLS with a certificate issued for another name than the address; TLS that lets a call
 * through only with the right API key.
 */
class SecureTemporalConnectionTest {
    private static final String API_KEY = "rbx-test-key-7f3a";

    @TempDir
    static Path dir;

    static TestCertificates ca;
    static TestCertificates otherCa;
    static TestCertificates.Issued client;
    static TemporalDevServer temporalServer;
    static NginxProcess nginx;
    static int mutualTlsPort;
    static int otherNamePort;
    static int apiKeyPort;

    @BeforeAll
    static void startTemporalBehindNginx() throws Exception {
        Path binary = NginxProcess.binaryOrSkip();
        ca = TestCertificates.authority(dir, "relaybox");
        otherCa = TestCertificates.authority(dir, "stranger");
        TestCertificates.Issued server = ca.server("frontend", "DNS:localhost", "IP:127.0.0.1");
        TestCertificates.Issued otherName = ca.server("frontend-internal", "DNS:temporal.internal");
        client = ca.client("relaybox-worker");

        temporalServer = RealTemporal.start("behind-nginx");
        mutualTlsPort = TestApp.freePort();
        otherNamePort = TestApp.freePort();
        apiKeyPort = TestApp.freePort();
        String upstream = "grpc_pass grpc://" + temporalServer.address() + ";";
        String http = """
                grpc_read_timeout 5m;
                grpc_send_timeout 5m;
                client_max_body_size 16m;
                server {
                    listen 127.0.0.1:%1$d ssl http2;
                    ssl_certificate %4$s;
                    ssl_certificate_key %5$s;
                    ssl_client_certificate %8$s;
                    ssl_verify_client on;
                    location / { %9$s }
                }
                server {
                    listen 127.0.0.1:%2$d ssl http2;
                    ssl_certificate %6$s;
                    ssl_certificate_key %7$s;
                    ssl_client_certificate %8$s;
                    ssl_verify_client on;
                    location / { %9$s }
                }
                server {
                    listen 127.0.0.1:%3$d ssl http2;
                    ssl_certificate %4$s;
                    ssl_certificate_key %5$s;
                    location / {
                        if ($http_authorization != "Bearer %10$s") { return 403; }
                        %9$s
                    }
                }
                """.formatted(
                        mutualTlsPort,
                        otherNamePort,
                        apiKeyPort,
                        server.cert(),
                        server.key(),
                        otherName.cert(),
                        otherName.key(),
                        ca.caCert(),
                        upstream,
                        API_KEY);
        nginx = NginxProcess.start(binary, dir, http, List.of(mutualTlsPort, otherNamePort, apiKeyPort));
    }

    @AfterAll
    static void stop() throws Exception {
        if (nginx != null) {
            nginx.close();
        }
        if (temporalServer != null) {
            temporalServer.close();
        }
    }

    @Test
    void workerAndClientWithAClientCertificateRunAWorkflowThroughTheProxy() throws Exception {
        TemporalFactory config = temporal(
                mutualTlsPort,
                Map.of(
                        "tls",
                        Map.of(
                                "clientCert",
                                client.cert().toString(),
                                "clientKey",
                                client.key().toString(),
                                "serverCa",
                                ca.caCert().toString())));
        TemporalRuntime runtime = TemporalRuntime.create(config, new NoopScope(), Path.of("unused"));
        runtime.registerWorkers(
                workers -> workers.worker().registerWorkflowImplementationTypes(PingWorkflow.Impl.class));
        runtime.start();
        try {
            PingWorkflow ping = runtime.client()
                    .newWorkflowStub(
                            PingWorkflow.class,
                            WorkflowOptions.newBuilder()
                                    .setTaskQueue(config.getTaskQueue())
                                    .setWorkflowId("ping-over-mtls")
                                    .build());

            assertThat(ping.ping("over mTLS")).isEqualTo("pong over mTLS");
        } finally {
            runtime.stop();
        }
    }

    @Test
    void withoutAClientCertificateTheProxyRefusesTheCall() {
        TemporalConnection connection = TemporalConnection.from(temporal(
                mutualTlsPort, Map.of("tls", Map.of("serverCa", ca.caCert().toString()))));

        int mark = nginx.errorLogMark();

        StatusRuntimeException refused =
                catchThrowableOfType(() -> describeDefaultNamespace(connection), StatusRuntimeException.class);

        assertThat(refused.getStatus().getDescription()).contains("HTTP status code 400");
        assertThat(nginx.errorLogSince(mark)).contains("client sent no required SSL certificate");
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefused() {
        TestCertificates.Issued stranger = otherCa.client("stranger-worker");
        TemporalConnection connection = TemporalConnection.from(temporal(
                mutualTlsPort,
                Map.of(
                        "tls",
                        Map.of(
                                "clientCert",
                                stranger.cert().toString(),
                                "clientKey",
                                stranger.key().toString(),
                                "serverCa",
                                ca.caCert().toString()))));
        int mark = nginx.errorLogMark();

        StatusRuntimeException refused =
                catchThrowableOfType(() -> describeDefaultNamespace(connection), StatusRuntimeException.class);

        assertThat(refused.getStatus().getDescription()).contains("HTTP status code 400");
        // The JDK offers only a certificate from a CA the server asks for, so nginx sees none.
        assertThat(nginx.errorLogSince(mark))
                .containsAnyOf("client sent no required SSL certificate", "client SSL certificate verify error");
    }

    @Test
    void aServerCertificateFromAnUntrustedCaFailsVerification() {
        TemporalConnection connection = TemporalConnection.from(temporal(
                mutualTlsPort,
                Map.of(
                        "tls",
                        Map.of(
                                "clientCert",
                                client.cert().toString(),
                                "clientKey",
                                client.key().toString(),
                                "serverCa",
                                otherCa.caCert().toString()))));

        StatusRuntimeException failed =
                catchThrowableOfType(() -> describeDefaultNamespace(connection), StatusRuntimeException.class);

        assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(failed).hasStackTraceContaining("SSLHandshakeException");
    }

    @Test
    void tlsWithTheDefaultTrustStoreDoesNotTrustAPrivateCa() {
        TemporalConnection connection = TemporalConnection.from(temporal(
                mutualTlsPort,
                Map.of(
                        "tls",
                        Map.of(
                                "enabled",
                                true,
                                "clientCert",
                                client.cert().toString(),
                                "clientKey",
                                client.key().toString()))));

        StatusRuntimeException failed =
                catchThrowableOfType(() -> describeDefaultNamespace(connection), StatusRuntimeException.class);

        assertThat(failed).hasStackTraceContaining("SSLHandshakeException");
    }

    @Test
    void serverNameOverrideVerifiesACertificateIssuedForAnotherName() {
        Map<String, Object> tls = new HashMap<>(Map.of(
                "clientCert",
                client.cert().toString(),
                "clientKey",
                client.key().toString(),
                "serverCa",
                ca.caCert().toString()));
        TemporalConnection byAddress = TemporalConnection.from(temporal(otherNamePort, Map.of("tls", tls)));
        tls.put("serverName", "temporal.internal");
        TemporalConnection byName = TemporalConnection.from(temporal(otherNamePort, Map.of("tls", tls)));

        assertThat(catchThrowableOfType(() -> describeDefaultNamespace(byAddress), StatusRuntimeException.class))
                .hasStackTraceContaining("SSLHandshakeException");
        assertThat(describeDefaultNamespace(byName).getNamespaceInfo().getName())
                .isEqualTo("default");
    }

    @Test
    void theApiKeyReachesTheServerAsABearerToken() {
        Map<String, Object> trustTheCa = Map.of("serverCa", ca.caCert().toString());
        TemporalConnection withKey =
                TemporalConnection.from(temporal(apiKeyPort, Map.of("apiKey", API_KEY, "tls", trustTheCa)));
        TemporalConnection withWrongKey =
                TemporalConnection.from(temporal(apiKeyPort, Map.of("apiKey", "not-the-key", "tls", trustTheCa)));
        TemporalConnection withoutKey = TemporalConnection.from(temporal(apiKeyPort, Map.of("tls", trustTheCa)));

        assertThat(describeDefaultNamespace(withKey).getNamespaceInfo().getName())
                .isEqualTo("default");
        assertThat(catchThrowableOfType(() -> describeDefaultNamespace(withWrongKey), StatusRuntimeException.class)
                        .getStatus()
                        .getCode())
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(catchThrowableOfType(() -> describeDefaultNamespace(withoutKey), StatusRuntimeException.class)
                        .getStatus()
                        .getCode())
                .isEqualTo(Status.Code.PERMISSION_DENIED);
    }

    private static DescribeNamespaceResponse describeDefaultNamespace(TemporalConnection connection) {
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
                connection.workflowServiceStubsOptions().build());
        try {
            return stubs.blockingStub()
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .describeNamespace(DescribeNamespaceRequest.newBuilder()
                            .setNamespace("default")
                            .build());
        } finally {
            stubs.shutdownNow();
        }
    }

    private static TemporalFactory temporal(int port, Map<String, Object> security) {
        Map<String, Object> settings = new HashMap<>(security);
        settings.put("address", "127.0.0.1:" + port);
        return TemporalConnectionTest.temporal(settings);
    }
}
