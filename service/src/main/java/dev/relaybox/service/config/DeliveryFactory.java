package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
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

    /** Unset: allowed in embedded mode (local receivers), refused otherwise. */
    @JsonProperty
    private Boolean allowPrivateNetworks;

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

    public boolean allowPrivateNetworks(boolean embedded) {
        return allowPrivateNetworks == null ? embedded : allowPrivateNetworks;
    }

    public java.time.Duration getSecretRotationGrace() {
        return secretRotationGrace.toJavaDuration();
    }

    public DeliverySettings build(boolean embedded) {
        DeliverySchedule schedule = new DeliverySchedule(
                retryDelays.stream().map(Duration::toJavaDuration).toList(), jitter, maxRetryAfter.toJavaDuration());
        return DeliverySettings.defaults()
                .withSchedule(schedule)
                .withTimeouts(connectTimeout.toJavaDuration(), requestTimeout.toJavaDuration())
                .withAllowPrivateNetworks(allowPrivateNetworks(embedded));
    }
}
