package dev.relaybox.service.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** A file of secrets in the embedded data directory: readable by its owner only, and never half written. */
final class OwnerOnlyFile {
    private OwnerOnlyFile() {}

    /** Replaces {@code file} whole: a crash leaves the old file (or none) or the whole new one. */
    static void replace(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Path temporary = Files.createTempFile(
                    file.getParent(),
                    file.getFileName().toString(),
                    ".new",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temporary, content, StandardCharsets.US_ASCII);
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
