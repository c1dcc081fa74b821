package dev.relaybox.service;

import com.codahale.metrics.health.HealthCheck;
import dev.relaybox.service.config.Roles;

/** Names what this process does, so /healthcheck shows which checks to expect beside it. */
final class RolesHealthCheck extends HealthCheck {
    private final Roles roles;

    RolesHealthCheck(Roles roles) {
        this.roles = roles;
    }

    @Override
    protected Result check() {
        return Result.healthy("roles %s", roles);
    }
}
