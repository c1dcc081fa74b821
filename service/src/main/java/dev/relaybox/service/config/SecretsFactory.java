package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.store.SecretBox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The key that seals endpoint signing secrets in the database: {@code RELAYBOX_SECRETS_KEY} (the base64 of 32 random
 * bytes), plus {@code RELAYBOX_SECRETS_OLD_KEYS} (comma-separated) that only open values while a rotation re-seals
 * them. Production refuses to start without a key; fully embedded mode without one keeps its own in the data
 * directory ({@link #EMBEDDED_KEY_FILE}, readable by the owner only), made on first start and reused after.
 */
public final class SecretsFactory {
    public static final String EMBEDDED_KEY_FILE = "relaybox-secrets.key";

    @JsonProperty
    private String key = "";

    @JsonProperty
    private String oldKeys = "";

    public boolean hasKey() {
        return key != null && !key.isBlank();
    }

    /** Why this process cannot start without embedded defaults, or null. */
    public String productionProblem() {
        return hasKey()
                ? null
                : "endpoint signing secrets are sealed at rest and RELAYBOX_SECRETS_KEY is not set; set it to the "
                        + "base64 of 32 random bytes (head -c 32 /dev/urandom | base64) and keep it as safe as the "
                        + "database password";
    }

    /** The configured key, as written; only for handing on to the embedded key file after a rotation. */
    public String currentKey() {
        return key.trim();
    }

    public List<String> oldKeyList() {
        return oldKeys == null || oldKeys.isBlank()
                ? List.of()
                : Arrays.stream(oldKeys.split(","))
                        .map(String::trim)
                        .filter(k -> !k.isEmpty())
                        .toList();
    }

    /** The box of the configured key, or (when none is set) of the embedded data directory's own key. */
    public SecretBox build(Path embeddedDataDirectory) {
        String current = hasKey() ? key : embeddedKey(embeddedDataDirectory);
        return box(current, oldKeyList());
    }

    /** The box that re-seals under the configured key, opening values under the old keys and {@code alsoOpens}. */
    public SecretBox rotation(Optional<String> alsoOpens) {
        if (!hasKey()) {
            throw new IllegalStateException(
                    "set RELAYBOX_SECRETS_KEY to the new key (head -c 32 /dev/urandom | base64) "
                            + "and RELAYBOX_SECRETS_OLD_KEYS to the keys values may still be sealed under");
        }
        List<String> opens = new ArrayList<>(oldKeyList());
        alsoOpens.ifPresent(opens::add);
        return box(key, opens);
    }

    private static SecretBox box(String current, List<String> older) {
        try {
            return SecretBox.of(current, older);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    "refusing to start: RELAYBOX_SECRETS_KEY / RELAYBOX_SECRETS_OLD_KEYS: " + e.getMessage());
        }
    }

    /** The embedded data directory's key, made (readable by the owner only) when there is none yet. */
    static String embeddedKey(Path dataDirectory) {
        return readEmbeddedKey(dataDirectory).orElseGet(() -> {
            String fresh = SecretBox.newKey();
            writeEmbeddedKey(dataDirectory, fresh);
            return fresh;
        });
    }

    public static Optional<String> readEmbeddedKey(Path dataDirectory) {
        try {
            return Optional.of(Files.readString(dataDirectory.resolve(EMBEDDED_KEY_FILE), StandardCharsets.US_ASCII)
                    .trim());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dataDirectory.resolve(EMBEDDED_KEY_FILE), e);
        }
    }

    /** Replaces the embedded key file whole: a crash leaves the old file or the new one, never half of one. */
    public static void writeEmbeddedKey(Path dataDirectory, String key) {
        OwnerOnlyFile.replace(dataDirectory.resolve(EMBEDDED_KEY_FILE), key + "\n");
    }
}
