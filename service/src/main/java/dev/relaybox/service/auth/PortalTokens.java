package dev.relaybox.service.auth;

import dev.relaybox.store.SecretBox;
import dev.relaybox.store.TenantStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Portal links' tokens: a session id and its expiry sealed (AES-GCM, so signed too) under the secrets key, base64url,
 * behind {@value #PREFIX}. A token is valid while it opens, has not expired, and its session is neither revoked nor of
 * a disabled tenant: forging one needs the key, and revoking one needs only the database.
 */
public final class PortalTokens {
    public static final String PREFIX = "rbp_";

    private final Jdbi jdbi;
    private final SecretBox box;

    public PortalTokens(Jdbi jdbi, SecretBox box) {
        this.jdbi = jdbi;
        this.box = box;
    }

    public record Issued(UUID sessionId, String token, Instant expiresAt) {}

    public Issued issue(String tenant, String createdBy, Instant expiresAt) {
        UUID session = jdbi.withExtension(TenantStore.class, store -> store.openSession(tenant, createdBy, expiresAt));
        String sealed = box.seal(session + "|" + expiresAt.getEpochSecond(), SecretBox.Purpose.PORTAL_TOKEN);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(sealed));
        return new Issued(session, token, expiresAt);
    }

    public static boolean looksLikePortalToken(String token) {
        return token.startsWith(PREFIX);
    }

    /** The open session a token names, or empty for anything else: altered, expired, revoked, of a disabled tenant. */
    public Optional<TenantStore.PortalSession> verify(String token) {
        if (!looksLikePortalToken(token) || token.length() > 512) {
            return Optional.empty();
        }
        String[] parts;
        try {
            String sealed =
                    new String(Base64.getUrlDecoder().decode(token.substring(PREFIX.length())), StandardCharsets.UTF_8);
            parts = box.open(sealed, SecretBox.Purpose.PORTAL_TOKEN).split("\\|");
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Optional.empty();
        }
        if (parts.length != 2 || Instant.ofEpochSecond(Long.parseLong(parts[1])).isBefore(Instant.now())) {
            return Optional.empty();
        }
        UUID session = UUID.fromString(parts[0]);
        return jdbi.withExtension(TenantStore.class, store -> store.openSession(session));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
