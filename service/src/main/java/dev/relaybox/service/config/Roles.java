package dev.relaybox.service.config;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What one Relaybox process does ({@code RELAYBOX_ROLES}, comma-separated; all three by default), so a bigger
 * deployment scales each part on its own against one database and one Temporal cluster.
 */
public record Roles(Set<Role> roles) {
    public enum Role {
        /** Serves the HTTP APIs: partner intake, the producer API, the admin API and page. */
        API,
        /** Turns outbox and inbox rows into workflows: the dispatcher, the reconciler, the NOTIFY listener. */
        DISPATCHER,
        /** Polls the task queue: runs the workflows and their activities. */
        WORKER;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Roles {
        roles = Set.copyOf(roles);
    }

    public static final String ALL = "api,dispatcher,worker";

    /** Parses {@code api,dispatcher,worker}; throws naming RELAYBOX_ROLES on an unknown or empty list. */
    public static Roles parse(String text) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (String name : text.split(",")) {
            String trimmed = name.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            roles.add(Arrays.stream(Role.values())
                    .filter(role -> role.label().equals(trimmed.toLowerCase(Locale.ROOT)))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "unknown role '" + trimmed + "' in RELAYBOX_ROLES (roles: " + ALL + ")")));
        }
        if (roles.isEmpty()) {
            throw new IllegalArgumentException("RELAYBOX_ROLES names no role; use some of " + ALL);
        }
        return new Roles(roles);
    }

    public boolean api() {
        return roles.contains(Role.API);
    }

    public boolean dispatcher() {
        return roles.contains(Role.DISPATCHER);
    }

    public boolean worker() {
        return roles.contains(Role.WORKER);
    }

    @Override
    public String toString() {
        return EnumSet.copyOf(roles).stream().map(Role::label).collect(Collectors.joining(","));
    }
}
