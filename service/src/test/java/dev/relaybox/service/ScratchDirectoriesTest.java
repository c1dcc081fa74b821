package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ScratchDirectoriesTest {

    /** Run in a JVM of its own by the test below: makes a scratch directory with a file in it and prints its path. */
    public static void main(String[] args) throws Exception {
        Path directory = ScratchDirectories.create("relaybox-scratch");
        Files.writeString(Files.createDirectories(directory.resolve("nested")).resolve("data"), "written by a test");
        System.out.println(directory);
    }

    @Test
    void aTestJvmLeavesNoScratchDirectoryBehindWhenItExits() throws Exception {
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        ScratchDirectoriesTest.class.getName())
                .redirectErrorStream(true)
                .start();
        String printed = new String(child.getInputStream().readAllBytes()).strip();

        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(printed).isZero();
        Path directory = Path.of(printed);
        assertThat(directory.getFileName().toString()).startsWith("relaybox-scratch");
        assertThat(directory).doesNotExist();
    }
}
