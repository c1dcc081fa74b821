package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.relaybox.store.InboxSettings;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;

/** How long an early event waits for its precondition. */
public final class InboxFactory {
    /** A deferred event decides again this often even if no release signal comes. */
    @NotNull
    @JsonProperty
    private Duration recheckInterval = Duration.minutes(5);

    /** Past this, a deferred event is dead-lettered with the precondition it was waiting for. */
    @NotNull
    @JsonProperty
    private Duration maxDeferral = Duration.hours(24);

    public InboxSettings build() {
        return new InboxSettings(recheckInterval.toJavaDuration(), maxDeferral.toJavaDuration());
    }
}
