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

/** Where embedded mode keeps its PostgreSQL: a persistent data directory that survives restarts. */
public final class EmbeddedPostgresFactory {
    @NotEmpty
    @JsonProperty
    private String dataDirectory = "./data/postgres";

    /** 0 picks a free port. */
    @Min(0)
    @Max(65535)
    @JsonProperty
    private int port = 54329;

    public String getDataDirectory() {
        return dataDirectory;
    }

    public int getPort() {
        return port;
    }

    public EmbeddedPostgres start() {
        try {
            Path dir = Path.of(dataDirectory).toAbsolutePath();
            Files.createDirectories(dir);
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false);
            if (port > 0) {
                builder.setPort(port);
            }
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDirectory, e);
        }
    }
}
