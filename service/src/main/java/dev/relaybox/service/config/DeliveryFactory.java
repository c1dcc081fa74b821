package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.activities.outbound.AddressBlock;
import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.CircuitSettings;
import dev.relaybox.activities.outbound.DeliverySettings;
import dev.relaybox.workflows.outbound.DeliverySchedule;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Outbound delivery: the retry schedule and the HTTP client's limits. */
public final class DeliveryFactory {
    /** Waits between attempts; their count + 1 is the number of attempts before a dead letter. */
    @NotNull
    @JsonProperty
    private List<Duration> retryDelays = List.of(Duration.minutes(1), Duration.minutes(5), Duration.minutes(15));

    @DecimalMin("0.0")
    @DecimalMax("0.99")
    @JsonProperty
    private double jitter = 0.1;

    @NotNull
    @JsonProperty
    private Duration maxRetryAfter = Duration.hours(1);

    @NotNull
    @JsonProperty
    private Duration connectTimeout = Duration.seconds(5);

    /**
     * One deadline over a whole attempt: connect, send, headers and the body excerpt. Below the attempt
     * activity's 2-minute start-to-close timeout, so the HTTP call always ends first.
     */
    @NotNull
    @MaxDuration(value = 90, unit = TimeUnit.SECONDS)
    @JsonProperty
    private Duration requestTimeout = Duration.seconds(15);

    /**
     * How long a first attempt may hold the workflow task that made it (and its slot) waiting for the answer before
     * the wait is handed to the HTTP worker; under the workflow task's 10-second timeout.
     */
    @NotNull
    @MaxDuration(value = 5, unit = TimeUnit.SECONDS)
    @JsonProperty
    private Duration firstAttemptHold = Duration.seconds(1);

    /**
     * Development mode's allow-list: receivers on this machine (a local {@code relaybox receive}) and on private
     * networks. Relaybox's own ports stay refused.
     */
    public static final String DEVELOPMENT_PRIVATE_NETWORKS =
            "127.0.0.0/8,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7";

    /**
     * CIDR blocks of special-purpose addresses (private, loopback, ...) endpoints may resolve to, comma-separated;
     * blank: {@link #DEVELOPMENT_PRIVATE_NETWORKS} in development mode, none otherwise; {@code none}: none.
     */
    @JsonProperty
    private String allowedPrivateNetworks = "";

    /**
     * The special-purpose blocks tenants' endpoints may reach, which are not the operator's: blank, the development
     * networks in development mode and none otherwise; {@code none}: none.
     */
    @JsonProperty
    private String tenantAllowedPrivateNetworks = "";

    /** The on/off switch {@link #allowedPrivateNetworks} replaced; set, start-up fails naming the replacement. */
    @JsonProperty
    private String allowPrivateNetworks = "";

    /** How long a rotated-out secret keeps signing beside the new one. */
    @NotNull
    @JsonProperty
    private Duration secretRotationGrace = Duration.hours(24);

    /** Per-endpoint circuit breaker: see {@link CircuitBreakerFactory}. */
    @NotNull
    @Valid
    @JsonProperty
    private CircuitBreakerFactory circuitBreaker = new CircuitBreakerFactory();

    public CircuitSettings circuitSettings() {
        return circuitBreaker.build();
    }

    /** Why this configuration must not start, or null: the removed switch is set. */
    public String removedSettingProblem() {
        if (allowPrivateNetworks == null || allowPrivateNetworks.isBlank()) {
            return null;
        }
        return "ALLOW_PRIVATE_NETWORKS (delivery.allowPrivateNetworks) is replaced by " + AddressPolicy.SETTING
                + " (delivery.allowedPrivateNetworks), a list of CIDR blocks such as 10.0.0.0/8,192.168.0.0/16;"
                + " loopback only when listed (127.0.0.0/8); unset the old one";
    }

    /**
     * The blocks endpoints may reach beyond public addresses; {@link IllegalArgumentException} naming the setting
     * and the entry that is not a CIDR block.
     */
    public List<AddressBlock> allowedPrivateNetworks(boolean development) {
        return networks(allowedPrivateNetworks, AddressPolicy.SETTING, development);
    }

    /** As {@link #allowedPrivateNetworks}, for tenants' endpoints. */
    public List<AddressBlock> tenantAllowedPrivateNetworks(boolean development) {
        return networks(tenantAllowedPrivateNetworks, AddressPolicy.TENANT_SETTING, development);
    }

    private static List<AddressBlock> networks(String setting, String name, boolean development) {
        String value = setting == null ? "" : setting.trim();
        if (value.equalsIgnoreCase("none")) {
            return List.of();
        }
        if (value.isEmpty()) {
            value = development ? DEVELOPMENT_PRIVATE_NETWORKS : "";
        }
        try {
            return AddressBlock.parseList(value, name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    public java.time.Duration getSecretRotationGrace() {
        return secretRotationGrace.toJavaDuration();
    }

    /** {@code addresses}: {@link AddressPolicy} over {@link #allowedPrivateNetworks} and Relaybox's own listeners. */
    public DeliverySettings build(AddressPolicy addresses) {
        DeliverySchedule schedule = new DeliverySchedule(
                retryDelays.stream().map(Duration::toJavaDuration).toList(), jitter, maxRetryAfter.toJavaDuration());
        return DeliverySettings.defaults()
                .withSchedule(schedule)
                .withTimeouts(connectTimeout.toJavaDuration(), requestTimeout.toJavaDuration())
                .withFirstAttemptHold(firstAttemptHold.toJavaDuration())
                .withAddresses(addresses);
    }
}
