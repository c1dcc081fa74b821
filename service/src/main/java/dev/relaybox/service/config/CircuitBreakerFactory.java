package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.activities.outbound.CircuitSettings;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** {@code delivery.circuitBreaker}: when an endpoint's deliveries stop spending attempts and wait for a probe. */
public final class CircuitBreakerFactory {
    /** Consecutive failed attempts that open the circuit; 0 turns the breaker off. */
    @Min(0)
    @Max(10_000)
    @JsonProperty
    private int failureThreshold = 5;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    @JsonProperty
    private Duration probeInterval = Duration.seconds(30);

    /** An endpoint failing continuously this long is disabled with a reason (as Svix does, after 5 days). */
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MINUTES)
    @JsonProperty
    private Duration disableAfter = Duration.days(5);

    public CircuitSettings build() {
        return CircuitSettings.defaults()
                .withFailureThreshold(failureThreshold)
                .withProbeInterval(probeInterval.toJavaDuration())
                .withDisableAfter(disableAfter.toJavaDuration());
    }
}
