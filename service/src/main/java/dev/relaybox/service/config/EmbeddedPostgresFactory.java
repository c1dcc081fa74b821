package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where embedded mode keeps its PostgreSQL: a persistent data directory that survives restarts. It runs durable
 * by default: a webhook answered "accepted" or an outbox row committed is on disk, as with any PostgreSQL.
 */
public final class EmbeddedPostgresFactory {
    /**
     * The library starts PostgreSQL as a throwaway test database: {@code -F} (fsync off) on the command line and
     * {@code synchronous_commit=off}. Options given with {@code -c} come after {@code -F}, and the last one wins.
     */
    static final Map<String, String> DURABLE_SETTINGS = Map.of(
            "fsync", "on",
            "synchronous_commit", "on",
            "full_page_writes", "on");

    @NotEmpty
    @JsonProperty
    private String dataDirectory = "./data/postgres";

    /** 0 picks a free port. */
    @Min(0)
    @Max(65535)
    @JsonProperty
    private int port = 54329;

    /** False keeps the library's fast, crash-unsafe settings: for test suites, never for data anyone needs. */
    @JsonProperty
    private boolean durable = true;

    public String getDataDirectory() {
        return dataDirectory;
    }

    public int getPort() {
        return port;
    }

    public boolean isDurable() {
        return durable;
    }

    public EmbeddedPostgres start() {
        try {
            Path dir = Path.of(dataDirectory).toAbsolutePath();
            Files.createDirectories(dir);
            EmbeddedPostgres.Builder builder =
                    EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false);
            if (port > 0) {
                builder.setPort(port);
            }
            if (durable) {
                DURABLE_SETTINGS.forEach(builder::setServerConfig);
            }
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDirectory, e);
        }
    }
}
