package dev.relaybox.activities.outbound;

import io.micrometer.core.instrument.Tags;
import java.util.UUID;

/**
 * How metrics name an endpoint: by its id and its tenant ({@code ""} for the operator's own), never by its name. Names
 * are chosen by tenants, repeat across tenants and have no bound; the name is one label of
 * {@code relaybox_endpoint_info}, to join on.
 */
public final class EndpointTags {
    private EndpointTags() {}

    public static Tags of(UUID endpointId, String tenant) {
        return Tags.of("endpoint", endpointId.toString(), "tenant", tenant == null ? "" : tenant);
    }
}
