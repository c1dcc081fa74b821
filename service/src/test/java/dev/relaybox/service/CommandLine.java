package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A {@code relaybox} command in its own JVM, as an operator runs it, on an embedded data directory of its own. */
public final class CommandLine {
    private CommandLine() {}

    /**
     * Runs {@code relaybox <arguments> config.yml} with {@code environment} set (a null value removes the variable) and
     * asserts it succeeded; its output.
     */
    public static String run(Path dataDirectory, Map<String, String> environment, String... arguments)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                "-Ddw.embeddedPostgres.dataDirectory=" + dataDirectory,
                "-Ddw.embeddedPostgres.port=0",
                "-Ddw.logging.level=WARN",
                RelayboxApplication.class.getName()));
        command.addAll(List.of(arguments));
        command.add(TestApp.CONFIG);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        environment.forEach((name, value) -> {
            if (value == null) {
                builder.environment().remove(name);
            } else {
                builder.environment().put(name, value);
            }
        });
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue())
                .as("relaybox %s answered:%n%s", String.join(" ", arguments), out)
                .isZero();
        return out;
    }
}
