package dev.relaybox.service.auth;

import java.security.Principal;
import java.util.Set;

/** Whoever presented a valid bearer token, and what that token allows. */
public record Caller(String name, Set<String> roles) implements Principal {
    public static final String ADMIN = "admin";
    public static final String PRODUCER = "producer";

    @Override
    public String getName() {
        return name;
    }
}
