package dev.relaybox.service.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API tokens of an embedded data directory, made on its first start: random, in {@value #FILE} beside the
 * database (readable by the owner only), as lines a shell can export ({@code RELAYBOX_ADMIN_TOKENS=rbx_…}). A token
 * everyone knows is live wherever a reverse proxy on the same host publishes the loopback port; one made here is
 * not.
 */
public final class EmbeddedTokens {
    public static final String FILE = "relaybox-tokens";
    static final String ADMIN = "RELAYBOX_ADMIN_TOKENS";
    static final String PRODUCER = "RELAYBOX_PRODUCER_TOKENS";

    private static final SecureRandom RANDOM = new SecureRandom();

    private EmbeddedTokens() {}

    /** The directory's tokens, made and written when there are none yet; true in {@code made} when they were. */
    public record Tokens(String admin, String producer, boolean made) {}

    public static Tokens of(Path dataDirectory) {
        Path file = dataDirectory.resolve(FILE);
        Map<String, String> stored = read(file);
        if (stored.containsKey(ADMIN) && stored.containsKey(PRODUCER)) {
            return new Tokens(stored.get(ADMIN), stored.get(PRODUCER), false);
        }
        Tokens made = new Tokens(newToken(), newToken(), true);
        write(file, ADMIN + "=" + made.admin() + "\n" + PRODUCER + "=" + made.producer() + "\n");
        return made;
    }

    /** {@code rbx_} and 32 random bytes: past {@link AuthFactory#MIN_TOKEN_LENGTH}, as production asks. */
    static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "rbx_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static Map<String, String> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : lines) {
            int equals = line.indexOf('=');
            if (equals > 0 && equals < line.length() - 1) {
                values.put(
                        line.substring(0, equals).trim(),
                        line.substring(equals + 1).trim());
            }
        }
        return values;
    }

    /** Replaces the file whole: a crash leaves no file or the whole new one. */
    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Path temporary = Files.createTempFile(
                    file.getParent(),
                    FILE,
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
