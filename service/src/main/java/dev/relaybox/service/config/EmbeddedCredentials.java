package dev.relaybox.service.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The credentials an embedded data directory makes for itself where the configuration sets none: the API tokens and
 * each partner's signing secret, random, in {@value #FILE} beside the database (readable by the owner only), as lines a
 * shell can export ({@code RELAYBOX_ADMIN_TOKENS=rbx_…}), named as the variables that would set them. A credential
 * everyone knows is live wherever a reverse proxy on the same host publishes the loopback port; one made here is not.
 */
public final class EmbeddedCredentials {
    public static final String FILE = "relaybox-credentials";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private final Map<String, String> values;
    private boolean made;

    private EmbeddedCredentials(Path file, Map<String, String> values) {
        this.file = file;
        this.values = values;
    }

    /** The credentials of {@code dataDirectory}, as far as it has any yet. */
    public static EmbeddedCredentials in(Path dataDirectory) {
        Path file = dataDirectory.resolve(FILE);
        return new EmbeddedCredentials(file, read(file));
    }

    /** The credential named {@code variable}, made by {@code fresh} and written when there is none yet. */
    public String value(String variable, Supplier<String> fresh) {
        String value = values.get(variable);
        if (value == null) {
            value = fresh.get();
            values.put(variable, value);
            made = true;
            write(file, values);
        }
        return value;
    }

    /** Whether this start made any: then the operator is told where they are. */
    public boolean made() {
        return made;
    }

    public Path file() {
        return file;
    }

    /** {@code rbx_} and 32 random bytes: past {@link AuthFactory#MIN_TOKEN_LENGTH}, as production asks. */
    static String newToken() {
        return "rbx_" + Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes());
    }

    /** A Standard Webhooks secret ({@code whsec_} and 32 random bytes), which every signature scheme takes. */
    static String newSigningSecret() {
        return "whsec_" + Base64.getEncoder().encodeToString(randomBytes());
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static Map<String, String> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return new LinkedHashMap<>();
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

    private static void write(Path file, Map<String, String> values) {
        OwnerOnlyFile.replace(
                file,
                values.entrySet().stream()
                        .map(entry -> entry.getKey() + "=" + entry.getValue() + "\n")
                        .collect(Collectors.joining()));
    }
}
