package dev.relaybox.service.outbound;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.Destination;
import dev.relaybox.activities.outbound.EndpointHeaders;
import dev.relaybox.activities.outbound.PayloadFilterSyntax;
import dev.relaybox.store.Endpoint;
import dev.relaybox.store.EndpointControls;
import dev.relaybox.store.EndpointHealthStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the API shows of an endpoint; {@code secret} only in the answer that created or rotated it, the values of
 * {@code headers} only in the answer that set them (every other shows their names, with {@code ••••}).
 */
public record EndpointView(
        UUID id,
        String name,
        String url,
        List<String> eventTypes,
        boolean enabled,
        String disabledReason,
        boolean rotatingSecret,
        String secret,
        JsonNode filter,
        Map<String, String> headers,
        Instant createdAt,
        Instant updatedAt,
        ControlsView controls,
        EndpointHealthView health,
        String tenant,
        DestinationSettings.View destination) {
    /** {@code revealedHeaders}: headers just set, shown as given; null shows the stored ones redacted. */
    static EndpointView of(Endpoint e, String revealedSecret, Map<String, String> revealedHeaders) {
        return new EndpointView(
                e.id(),
                e.name(),
                e.url(),
                e.eventTypes(),
                e.enabled(),
                e.disabledReason(),
                e.previousSecret() != null
                        && e.previousSecretExpiresAt() != null
                        && Instant.now().isBefore(e.previousSecretExpiresAt()),
                revealedSecret,
                e.payloadFilter() == null ? null : PayloadFilterSyntax.data(e.payloadFilter()),
                revealedHeaders != null ? revealedHeaders : EndpointHeaders.redacted(EndpointHeaders.read(e.headers())),
                e.createdAt(),
                e.updatedAt(),
                null,
                null,
                e.tenant(),
                Destination.fromJson(e.destination())
                        .map(DestinationSettings.View::of)
                        .orElse(null));
    }

    EndpointView with(EndpointControls controls, EndpointHealthStore.Health health) {
        return new EndpointView(
                id,
                name,
                url,
                eventTypes,
                enabled,
                disabledReason,
                rotatingSecret,
                secret,
                filter,
                headers,
                createdAt,
                updatedAt,
                ControlsView.of(controls),
                health == null ? null : EndpointHealthView.of(health),
                tenant,
                destination);
    }

    /** The endpoint's pacing and body format; null limits are unlimited. */
    public record ControlsView(
            Double rateLimit, Integer burst, Integer maxInFlight, boolean ordered, String payloadFormat) {
        static ControlsView of(EndpointControls c) {
            return new ControlsView(
                    c.rateLimit(),
                    c.rateLimit() == null ? null : c.effectiveBurst(),
                    c.maxInFlight(),
                    c.ordered(),
                    c.payloadFormat());
        }
    }
}
