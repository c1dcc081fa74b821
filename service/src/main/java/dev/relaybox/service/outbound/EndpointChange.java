package dev.relaybox.service.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code PATCH /admin/endpoints/{id}}: what is given changes, the rest stays. {@code filter} and {@code headers}
 * replace the endpoint's whole filter or header set; {@code {}} removes it. {@code destination} replaces the broker
 * destination, credentials included; {@code url} and {@code destination} are checked together.
 */
public record EndpointChange(
        @Size(max = 2000) String url,
        @Size(min = 1, max = 50) List<@NotNull @Pattern(regexp = NewEndpoint.EVENT_TYPES) String> eventTypes,
        Boolean enabled,
        @Size(max = 500) String disabledReason,
        Boolean rotateSecret,
        @DecimalMin("0") @DecimalMax("100000") Double rateLimit,
        @Min(1) @Max(100_000) Integer burst,
        @Min(0) @Max(10_000) Integer maxInFlight,
        Boolean ordered,

        @Pattern(regexp = NewEndpoint.PAYLOAD_FORMATS, message = NewEndpoint.PAYLOAD_FORMAT_RULE)
        String payloadFormat,

        @Schema(
                types = {"object"},
                description = "a payload filter on the event's data; {} removes it")
        JsonNode filter,

        Map<String, String> headers,

        @Valid DestinationSettings destination) {}
