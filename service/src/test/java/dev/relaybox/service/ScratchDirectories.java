package dev.relaybox.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * Directories tests write into (an application's database, a dev server's state), removed when the test JVM exits, so
 * a run of the suite leaves nothing behind: each embedded PostgreSQL is tens of megabytes, and a build machine that
 * runs the suite many times would otherwise fill its disk. Removed at exit rather than after each test because a
 * process a test started (PostgreSQL, the dev server) may still be writing while the test's own cleanup runs.
 */
public final class ScratchDirectories {
    private static final List<Path> CREATED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> CREATED.forEach(ScratchDirectories::deleteQuietly)));
    }

    private ScratchDirectories() {}

    public static Path create(String prefix) {
        try {
            Path directory = Files.createTempDirectory(prefix);
            CREATED.add(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: the JVM is exiting, and what stays is only disk space
        }
    }
}
