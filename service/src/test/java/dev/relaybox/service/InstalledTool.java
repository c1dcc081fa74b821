package dev.relaybox.service;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A command-line tool a test runs (the API fuzzer, promtool): the path in {@code variable} when set, else
 * {@code name} on the {@code PATH}. Skips the calling test when it is not installed on a developer's machine; on CI
 * ({@code CI=true}), where {@code .ci/run} installs it, that fails instead.
 */
public final class InstalledTool {
    private InstalledTool() {}

    /** {@code howToInstall} completes "… was not found (": what puts the tool on this machine. */
    public static Path require(String variable, String name, String howToInstall) {
        String explicit = variable == null ? null : System.getenv(variable);
        Stream<Path> candidates = explicit != null && !explicit.isBlank()
                ? Stream.of(Path.of(explicit))
                : Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                        .filter(directory -> !directory.isBlank())
                        .map(directory -> Path.of(directory, name));
        return candidates.filter(Files::isExecutable).findFirst().orElseGet(() -> {
            String why = name + " was not found (" + howToInstall + "; .ci/run installs it)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(why);
            }
            Assumptions.abort("skipping a test that runs " + name + ": " + why);
            throw new AssertionError(why);
        });
    }
}
