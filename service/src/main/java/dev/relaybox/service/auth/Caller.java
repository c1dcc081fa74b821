package dev.relaybox.service.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.HexFormat;
import java.util.Set;

/**
 * Whoever presented a valid bearer token, and what that token allows. Its name identifies the token, not the person
 * ({@code admin token 1f0c3a9e}: the role and the first 8 hex digits of the token's SHA-256), so records of who did
 * what name a token the operator can find in their configuration while never showing the token itself. A portal
 * caller holds a link of one {@code tenant} and may see nothing else; every other caller's tenant is null.
 */
public record Caller(String name, Set<String> roles, String tenant) implements Principal {
    public static final String ADMIN = "admin";
    public static final String PRODUCER = "producer";
    public static final String PORTAL = "portal";

    static Caller of(String role, Set<String> roles, String token) {
        return new Caller(role + " token " + fingerprint(token), roles, null);
    }

    static Caller portal(String tenant, String sessionId) {
        return new Caller("portal session " + sessionId + " of " + tenant, Set.of(PORTAL), tenant);
    }

    /** The first 8 hex digits of the token's SHA-256. */
    public static String fingerprint(String token) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** Who did it, for a record of an action: this caller, with the name they gave if they gave one. */
    public String naming(String given) {
        return given == null || given.isBlank() ? name : given + " (" + name + ")";
    }

    @Override
    public String getName() {
        return name;
    }
}
