package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Transport security towards a remote Temporal frontend: TLS, optionally with a client certificate (mTLS), a
 * private CA and a server name override. Files are PEM; checked when the connection is built
 * ({@link TemporalConnection#from(TemporalFactory)}).
 */
public final class TemporalTlsFactory {
    /** Unset: TLS is on as soon as any file, server name or API key is given; false forces plaintext. */
    @JsonProperty
    private Boolean enabled;

    /** Client certificate chain (PEM) presented to the server: mutual TLS. Needs {@link #clientKey}. */
    @JsonProperty
    private String clientCert;

    /** The client certificate's private key, unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY"). */
    @JsonProperty
    private String clientKey;

    /** CA certificates (PEM) trusted for the server instead of the JVM's default trust store. */
    @JsonProperty
    private String serverCa;

    /** Name expected in the server's certificate and sent as SNI, when it differs from the address host. */
    @JsonProperty
    private String serverName;

    public Optional<Boolean> enabled() {
        return Optional.ofNullable(enabled);
    }

    public Optional<Path> clientCert() {
        return path(clientCert);
    }

    public Optional<Path> clientKey() {
        return path(clientKey);
    }

    public Optional<Path> serverCa() {
        return path(serverCa);
    }

    public Optional<String> serverName() {
        return blankToEmpty(serverName);
    }

    private static Optional<Path> path(String value) {
        return blankToEmpty(value).map(Path::of);
    }

    static Optional<String> blankToEmpty(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }
}
