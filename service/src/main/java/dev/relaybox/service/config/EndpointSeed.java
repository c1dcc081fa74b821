package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import java.util.List;

/** An endpoint declared in config.yml, created or updated at start-up (matched by name). */
public record EndpointSeed(
        @JsonProperty("name") @NotEmpty String name,
        @JsonProperty("url") @NotEmpty String url,
        @JsonProperty("secret") @NotEmpty String secret,
        @JsonProperty("eventTypes") @NotEmpty List<String> eventTypes) {}
