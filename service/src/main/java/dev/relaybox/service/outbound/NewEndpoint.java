package dev.relaybox.service.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.store.TenantStore;
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
 * {@code POST /admin/endpoints}. {@code filter}: the payloads it receives (docs/endpoints.md); {@code headers}: static
 * headers on every request, shown only in this answer; {@code destination}: a broker to publish to, named by {@code url}
 * (docs/destinations.md).
 */
public record NewEndpoint(
        @NotNull @Pattern(regexp = NAME) String name,
        @NotNull @Size(max = 2000) String url,
        @Size(min = 1, max = 50) List<@NotNull @Pattern(regexp = EVENT_TYPES) String> eventTypes,
        String secret,
        @DecimalMin("0") @DecimalMax("100000") Double rateLimit,
        @Min(1) @Max(100_000) Integer burst,
        @Min(0) @Max(10_000) Integer maxInFlight,
        Boolean ordered,

        @Pattern(regexp = PAYLOAD_FORMATS, message = PAYLOAD_FORMAT_RULE)
        String payloadFormat,

        @Schema(
                types = {"object"},
                description = "a payload filter on the event's data",
                example =
                        "{\"all\": [{\"path\": \"/amount\", \"gte\": 100}, {\"path\": \"/currency\", \"in\": [\"EUR\"]}]}")
        JsonNode filter,

        @Schema(example = "{\"X-Api-Key\": \"k-123\"}") Map<String, String> headers,

        @Schema(description = "the tenant it belongs to; it then receives only that tenant's events")
        @Pattern(regexp = TenantStore.KEY, message = TenantStore.KEY_RULE)
        String tenant,

        @Valid DestinationSettings destination) {
    /** An endpoint's name. */
    public static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,99}";
    /** One of the event types an endpoint subscribes to: a name, a prefix ({@code order.*}) or every one ({@code *}). */
    public static final String EVENT_TYPES = "\\*|[A-Za-z0-9_.-]+(\\.\\*)?";

    public static final String PAYLOAD_FORMATS = "envelope|raw";
    public static final String PAYLOAD_FORMAT_RULE = "must be \"envelope\" or \"raw\"";
}
