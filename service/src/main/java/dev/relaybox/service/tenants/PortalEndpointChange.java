package dev.relaybox.service.tenants;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.relaybox.service.outbound.DestinationSettings;
import dev.relaybox.service.outbound.EndpointChange;
import dev.relaybox.service.outbound.NewEndpoint;
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
import java.util.Set;

/**
 * {@code PATCH /portal/api/endpoints/{id}}: what a tenant changes on an endpoint of its own, the rest staying.
 * Payload filters and static headers stay with the operator ({@link EndpointChange} has them), so a field for one is
 * refused, never silently ignored.
 */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record PortalEndpointChange(
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

        @Valid @Schema(description = "a broker instead of an HTTP URL, of a type the operator lets tenants use")
        DestinationSettings destination) {
    private static final List<Object> FIELDS = List.of(
            "url",
            "eventTypes",
            "enabled",
            "disabledReason",
            "rotateSecret",
            "rateLimit",
            "burst",
            "maxInFlight",
            "ordered",
            "payloadFormat",
            "destination");

    @JsonAnySetter
    void refuseUnknownField(String field, Object value) throws UnrecognizedPropertyException {
        throw new UnrecognizedPropertyException(
                null,
                "unknown field \"" + field + "\" (filters and static headers are set by the operator)",
                JsonLocation.NA,
                PortalEndpointChange.class,
                field,
                FIELDS);
    }

    /**
     * The change as the operator's API takes it, with the filter and headers left as they are and a destination only
     * of the {@code destinationTypes} the operator lets tenants use.
     */
    EndpointChange asChange(Set<String> destinationTypes) {
        DestinationSettings.checkAllowed(destination, destinationTypes);
        return new EndpointChange(
                url,
                eventTypes,
                enabled,
                disabledReason,
                rotateSecret,
                rateLimit,
                burst,
                maxInFlight,
                ordered,
                payloadFormat,
                null,
                null,
                destination);
    }
}
