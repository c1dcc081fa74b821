package dev.relaybox.service.config;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.ServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * How Relaybox reaches a Temporal frontend: its address and, for a secured cluster, TLS (optionally mutual, with
 * a private CA and a server name override) and an API key. Everything that connects to Temporal builds its
 * service stubs options here, so the worker, the client and commands all connect the same way.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #from(TemporalFactory)} checks the whole {@code temporal} section once, reading every PEM file, and
 *       throws {@link IllegalArgumentException} with a reason that names the setting and its environment variable
 *       (a certificate without its key, an unreadable or malformed file, a key of another certificate, an expired
 *       client certificate, TLS options with {@code address: embedded}, TLS switched off while TLS files are
 *       given). Nothing is connected yet; a reachable server is not checked here.</li>
 *   <li>TLS is on when {@code tls.enabled} is true, or when it is unset and any TLS file, server name or API key
 *       is given. Without {@code serverCa} the JVM's default trust store verifies the server; with it, only
 *       those CAs do.</li>
 *   <li>The API key travels as {@code Authorization: Bearer <key>} on every call.</li>
 *   <li>{@link #workflowServiceStubsOptions()}, {@link #operatorServiceStubsOptions()} and
 *       {@link #configure(ServiceStubsOptions.Builder)} return builders with target, TLS and API key set; callers
 *       add their own settings (metrics scope, timeouts) and build. An instance is immutable and may be shared.</li>
 * </ul>
 */
public final class TemporalConnection {
    static final String ENABLED = "temporal.tls.enabled (TEMPORAL_TLS)";
    static final String CERT = "temporal.tls.clientCert (TEMPORAL_TLS_CERT)";
    static final String KEY = "temporal.tls.clientKey (TEMPORAL_TLS_KEY)";
    static final String CA = "temporal.tls.serverCa (TEMPORAL_TLS_CA)";
    static final String SERVER_NAME = "temporal.tls.serverName (TEMPORAL_TLS_SERVER_NAME)";
    static final String API_KEY = "temporal.apiKey (TEMPORAL_API_KEY)";

    private final String target;
    private final SslContext sslContext;
    private final String serverName;
    private final String apiKey;
    private final String description;

    private TemporalConnection(
            String target, SslContext sslContext, String serverName, String apiKey, String description) {
        this.target = target;
        this.sslContext = sslContext;
        this.serverName = serverName;
        this.apiKey = apiKey;
        this.description = description;
    }

    /** A plaintext connection without credentials, as to the embedded server. */
    public static TemporalConnection plaintext(String target) {
        return new TemporalConnection(target, null, null, null, "plaintext");
    }

    /**
     * The connection {@code config} describes, checked; {@code address: embedded} gives a plaintext one to the
     * embedded server's configured port.
     *
     * @throws IllegalArgumentException naming the setting at fault and why
     */
    public static TemporalConnection from(TemporalFactory config) {
        TemporalTlsFactory tls = config.getTls();
        Optional<String> apiKey = config.apiKey();
        List<String> tlsSettings = tlsSettingsGiven(tls);
        if (config.isEmbedded()) {
            refuseSecurityForTheEmbeddedServer(tls, tlsSettings, apiKey);
            return plaintext("localhost:" + config.getEmbeddedPort());
        }
        refuseContradictions(tls, tlsSettings, apiKey);
        if (!tls.enabled().orElse(!tlsSettings.isEmpty() || apiKey.isPresent())) {
            return new TemporalConnection(
                    config.getAddress(),
                    null,
                    null,
                    apiKey.orElse(null),
                    apiKey.isPresent() ? "plaintext, API key" : "plaintext");
        }
        List<String> description = new ArrayList<>(List.of("TLS"));
        SslContext sslContext = sslContext(tls, description);
        tls.serverName().ifPresent(name -> description.add("server name " + name));
        apiKey.ifPresent(k -> description.add("API key"));
        return new TemporalConnection(
                config.getAddress(),
                sslContext,
                tls.serverName().orElse(null),
                apiKey.orElse(null),
                String.join(", ", description));
    }

    private static List<String> tlsSettingsGiven(TemporalTlsFactory tls) {
        List<String> given = new ArrayList<>();
        tls.clientCert().ifPresent(c -> given.add(CERT));
        tls.clientKey().ifPresent(k -> given.add(KEY));
        tls.serverCa().ifPresent(c -> given.add(CA));
        tls.serverName().ifPresent(n -> given.add(SERVER_NAME));
        return given;
    }

    private static void refuseSecurityForTheEmbeddedServer(
            TemporalTlsFactory tls, List<String> tlsSettings, Optional<String> apiKey) {
        List<String> given = new ArrayList<>();
        if (tls.enabled().orElse(false)) {
            given.add(ENABLED);
        }
        given.addAll(tlsSettings);
        apiKey.ifPresent(k -> given.add(API_KEY));
        if (!given.isEmpty()) {
            throw new IllegalArgumentException(String.join(", ", given) + (given.size() == 1 ? " is" : " are")
                    + " for a remote Temporal cluster, but temporal.address (TEMPORAL_ADDRESS) is embedded (a "
                    + "plaintext in-process server): set TEMPORAL_ADDRESS to the cluster's host:port, or unset "
                    + (given.size() == 1 ? "it" : "them"));
        }
    }

    private static void refuseContradictions(
            TemporalTlsFactory tls, List<String> tlsSettings, Optional<String> apiKey) {
        if (!tls.enabled().orElse(true) && !tlsSettings.isEmpty()) {
            throw new IllegalArgumentException(ENABLED + " is false, but " + String.join(", ", tlsSettings)
                    + (tlsSettings.size() == 1 ? " is" : " are") + " set; remove TEMPORAL_TLS=false to use TLS, or "
                    + "unset " + (tlsSettings.size() == 1 ? "it" : "them"));
        }
        if (tls.clientCert().isPresent() != tls.clientKey().isPresent()) {
            throw new IllegalArgumentException(
                    tls.clientCert().isPresent()
                            ? CERT + " is set without " + KEY + ": a client certificate needs its private key"
                            : KEY + " is set without " + CERT + ": a private key needs its client certificate");
        }
        if (apiKey.filter(k -> k.chars().anyMatch(Character::isWhitespace)).isPresent()) {
            throw new IllegalArgumentException(API_KEY + " contains whitespace; give the key alone");
        }
    }

    /** The client certificate (if any) and the trusted CAs, read and checked; adds what it uses to description. */
    private static SslContext sslContext(TemporalTlsFactory tls, List<String> description) {
        SslContextBuilder ssl = GrpcSslContexts.forClient();
        if (tls.clientCert().isPresent()) {
            Path cert = tls.clientCert().get();
            Path key = tls.clientKey().orElseThrow();
            List<X509Certificate> chain = PemFiles.certificates(CERT, cert);
            X509Certificate leaf = chain.get(0);
            String subject = leaf.getSubjectX500Principal().getName();
            if (leaf.getNotAfter().toInstant().isBefore(Instant.now())) {
                throw new IllegalArgumentException(
                        CERT + ": " + cert + " expired on " + leaf.getNotAfter().toInstant() + " (" + subject + ")");
            }
            PrivateKey privateKey =
                    PemFiles.privateKey(KEY, key, leaf.getPublicKey().getAlgorithm());
            if (!PemFiles.belongTogether(privateKey, leaf.getPublicKey())) {
                throw new IllegalArgumentException(KEY + ": " + key + " is not the private key of the certificate in "
                        + cert + " (" + subject + ")");
            }
            ssl.keyManager(privateKey, chain.toArray(X509Certificate[]::new));
            description.add("client certificate " + subject);
        }
        tls.serverCa().ifPresent(ca -> {
            ssl.trustManager(PemFiles.certificates(CA, ca).toArray(X509Certificate[]::new));
            description.add("server CA from " + ca);
        });
        try {
            return ssl.build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("temporal.tls: cannot set up TLS (" + e.getMessage() + ")", e);
        }
    }

    /** The frontend's {@code host:port}. */
    public String target() {
        return target;
    }

    /** An API key over plaintext ({@code tls.enabled: false}, e.g. behind a TLS sidecar) is readable on the way. */
    public boolean sendsApiKeyInPlaintext() {
        return apiKey != null && sslContext == null;
    }

    /** For logs: "plaintext", or "TLS" and what it uses (never the key itself). */
    public String description() {
        return description;
    }

    public WorkflowServiceStubsOptions.Builder workflowServiceStubsOptions() {
        return configure(WorkflowServiceStubsOptions.newBuilder());
    }

    public OperatorServiceStubsOptions.Builder operatorServiceStubsOptions() {
        return configure(OperatorServiceStubsOptions.newBuilder());
    }

    /**
     * Sets target, TLS and API key on any kind of service stubs options. With a server name override this takes
     * the builder's channel initializer; a caller that sets its own must call {@code overrideAuthority} itself.
     */
    public <B extends ServiceStubsOptions.Builder<B>> B configure(B builder) {
        builder.setTarget(target);
        // Explicit, because the SDK turns TLS on by itself when an API key is added.
        builder.setEnableHttps(sslContext != null);
        if (sslContext != null) {
            builder.setSslContext(sslContext);
        }
        if (serverName != null) {
            // gRPC uses the authority for SNI and for checking the name in the server's certificate.
            builder.setChannelInitializer(channel -> channel.overrideAuthority(serverName));
        }
        if (apiKey != null) {
            String key = apiKey;
            builder.addApiKey(() -> key);
        }
        return builder;
    }
}
