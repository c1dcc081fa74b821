package dev.relaybox.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.store.EndpointControls;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Pattern;
import java.util.List;
import java.util.Map;

/**
 * An endpoint declared in config.yml, created or updated at start-up (matched by name). The controls are
 * optional: {@code rateLimit} (requests per second) with {@code burst}, {@code maxInFlight}, {@code ordered}
 * and {@code payloadFormat} ({@code envelope} or {@code raw}); so are {@code filter}, a payload filter, and
 * {@code headers}, static request headers (docs/endpoints.md). What the seed leaves out is reset at start-up.
 */
public record EndpointSeed(
        @JsonProperty("name") @NotEmpty String name,
        @JsonProperty("url") @NotEmpty String url,
        @JsonProperty("secret") @NotEmpty String secret,
        @JsonProperty("eventTypes") @NotEmpty List<String> eventTypes,

        @JsonProperty("rateLimit") @DecimalMin(value = "0", inclusive = false) @DecimalMax("100000")
        Double rateLimit,

        @JsonProperty("burst") @Min(1) @Max(100_000) Integer burst,
        @JsonProperty("maxInFlight") @Min(1) @Max(10_000) Integer maxInFlight,
        @JsonProperty("ordered") Boolean ordered,

        @JsonProperty("payloadFormat") @Pattern(regexp = "envelope|raw")
        String payloadFormat,

        @JsonProperty("filter") JsonNode filter,
        @JsonProperty("headers") Map<String, String> headers) {

    public EndpointSeed(String name, String url, String secret, List<String> eventTypes) {
        this(name, url, secret, eventTypes, null, null, null, null, null, null, null);
    }

    public EndpointControls controls() {
        return new EndpointControls(
                rateLimit,
                burst,
                maxInFlight,
                Boolean.TRUE.equals(ordered),
                payloadFormat == null ? EndpointControls.ENVELOPE : payloadFormat);
    }
}
