package dev.relaybox.service.temporal;

import dev.relaybox.service.config.TemporalFactory;
import dev.relaybox.service.config.TemporalTlsFactory;
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
import java.util.stream.Stream;
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

    private TemporalConnection(String target, SslContext sslContext, String serverName, String apiKey,
            String description) {
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
        Optional<Path> cert = tls.clientCert();
        Optional<Path> key = tls.clientKey();
        Optional<Path> ca = tls.serverCa();
        Optional<String> serverName = tls.serverName();
        Optional<String> apiKey = config.apiKey();
        List<String> given = new ArrayList<>();
        cert.ifPresent(c -> given.add(CERT));
        key.ifPresent(k -> given.add(KEY));
        ca.ifPresent(c -> given.add(CA));
        serverName.ifPresent(n -> given.add(SERVER_NAME));

        if (config.isEmbedded()) {
            if (tls.enabled().orElse(false)) {
                given.add(0, ENABLED);
            }
            apiKey.ifPresent(k -> given.add(API_KEY));
            if (!given.isEmpty()) {
                throw new IllegalArgumentException(String.join(", ", given) + (given.size() == 1 ? " is" : " are")
                        + " for a remote Temporal cluster, but temporal.address (TEMPORAL_ADDRESS) is embedded (a "
                        + "plaintext in-process server): set TEMPORAL_ADDRESS to the cluster's host:port, or unset "
                        + (given.size() == 1 ? "it" : "them"));
            }
            return plaintext("localhost:" + config.getEmbeddedPort());
        }
        if (tls.enabled().isPresent() && !tls.enabled().get() && !given.isEmpty()) {
            throw new IllegalArgumentException(ENABLED + " is false, but " + String.join(", ", given)
                    + (given.size() == 1 ? " is" : " are") + " set; remove TEMPORAL_TLS=false to use TLS, or unset "
                    + (given.size() == 1 ? "it" : "them"));
        }
        if (cert.isPresent() != key.isPresent()) {
            throw new IllegalArgumentException(cert.isPresent()
                    ? CERT + " is set without " + KEY + ": a client certificate needs its private key"
                    : KEY + " is set without " + CERT + ": a private key needs its client certificate");
        }
        apiKey.ifPresent(k -> {
            if (k.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(API_KEY + " contains whitespace; give the key alone");
            }
        });

        boolean useTls = tls.enabled().orElse(!given.isEmpty() || apiKey.isPresent());
        if (!useTls) {
            return new TemporalConnection(config.getAddress(), null, null, apiKey.orElse(null),
                    apiKey.isPresent() ? "plaintext, API key" : "plaintext");
        }

        SslContextBuilder ssl = GrpcSslContexts.forClient();
        List<String> parts = new ArrayList<>();
        if (cert.isPresent()) {
            List<X509Certificate> chain = PemFiles.certificates(CERT, cert.get());
            X509Certificate leaf = chain.get(0);
            if (leaf.getNotAfter().toInstant().isBefore(Instant.now())) {
                throw new IllegalArgumentException(CERT + ": " + cert.get() + " expired on "
                        + leaf.getNotAfter().toInstant() + " (" + leaf.getSubjectX500Principal().getName() + ")");
            }
            PrivateKey privateKey = PemFiles.privateKey(KEY, key.get(), leaf.getPublicKey().getAlgorithm());
            if (!PemFiles.belongTogether(privateKey, leaf.getPublicKey())) {
                throw new IllegalArgumentException(KEY + ": " + key.get() + " is not the private key of the "
                        + "certificate in " + cert.get() + " (" + leaf.getSubjectX500Principal().getName() + ")");
            }
            ssl.keyManager(privateKey, chain.toArray(X509Certificate[]::new));
            parts.add("client certificate " + leaf.getSubjectX500Principal().getName());
        }
        if (ca.isPresent()) {
            ssl.trustManager(PemFiles.certificates(CA, ca.get()).toArray(X509Certificate[]::new));
            parts.add("server CA from " + ca.get());
        }
        serverName.ifPresent(name -> parts.add("server name " + name));
        apiKey.ifPresent(k -> parts.add("API key"));
        try {
            return new TemporalConnection(config.getAddress(), ssl.build(), serverName.orElse(null),
                    apiKey.orElse(null), Stream.concat(Stream.of("TLS"), parts.stream()).reduce((a, b) -> a + ", " + b)
                            .orElseThrow());
        } catch (SSLException e) {
            throw new IllegalArgumentException("temporal.tls: cannot set up TLS (" + e.getMessage() + ")", e);
        }
    }

    /** The frontend's {@code host:port}. */
    public String target() {
        return target;
    }

    public boolean usesTls() {
        return sslContext != null;
    }

    /** An API key over plaintext ({@code tls.enabled: false}, e.g. behind a local TLS sidecar) is readable on the way. */
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
